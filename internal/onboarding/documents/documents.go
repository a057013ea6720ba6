package documents

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"atcp/internal/onboarding"
)

// Status is a document's upload state.
type Status string

const (
	// Pending: presigned, not (yet) finalized; it expires with its URL.
	Pending Status = "pending"
	// Available: finalized; its object is checked and hashed.
	Available Status = "available"
	// Discarded: a pending upload dropped when its workflow was cancelled.
	Discarded Status = "discarded"
)

// The sniffed content types a document may have.
const (
	JPEG = "image/jpeg"
	PNG  = "image/png"
	HEIC = "image/heic"
	PDF  = "application/pdf"
	CSV  = "text/csv"
	XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
)

// MB is the unit of the size limits (10^6 bytes).
const MB = 1_000_000

// Rule is what a document type allows.
type Rule struct {
	Types   []string // content types, sniffed
	MaxSize int64    // bytes
}

var (
	photo = Rule{Types: []string{JPEG, PNG, HEIC}, MaxSize: 25 * MB}
	pdf   = Rule{Types: []string{PDF}, MaxSize: 50 * MB}
)

// Rules are the document types and what each allows (docs/onboarding.md 4.4).
var Rules = map[string]Rule{
	"installation_photo_mdevice":   photo,
	"installation_photo_antenna":   photo,
	"test_results_signed":          pdf,
	"betr":                         pdf,
	"dpl_signed":                   pdf,
	"prequalification_certificate": pdf,
	"single_line_diagram":          {Types: []string{PDF, PNG, JPEG}, MaxSize: 50 * MB},
	"other":                        {Types: []string{PDF, PNG, JPEG, CSV, XLSX}, MaxSize: 50 * MB},
}

// Types lists the document types in a stable order (the enum of the API).
var Types = []string{"installation_photo_mdevice", "installation_photo_antenna", "test_results_signed", "betr",
	"single_line_diagram", "dpl_signed", "prequalification_certificate", "other"}

// Limits of uploads.
const (
	MaxFilenameLength = 200
	MaxPendingUploads = 20               // per onboarding
	UploadTTL         = 15 * time.Minute // presigned PUT, security time
	DownloadTTL       = 5 * time.Minute  // presigned GET, security time
)

// Document is one version of an onboarding document.
type Document struct {
	ID               string // document_id, a UUID; also the last segment of its object key
	OrganizationID   string // the onboarding's
	OnboardingID     string
	GateDefinitionID string
	DocumentType     string
	LineageID        string // the first version's id
	Version          int
	Filename         string
	ContentType      string // declared; equal to the sniffed one once available
	SizeBytes        int64  // declared; equal to the object's once available
	SHA256           string // hex, once available
	ObjectKey        string
	Status           Status
	CreatedAt        time.Time  // the presign, platform time
	UploadExpiresAt  time.Time  // the presigned PUT's expiry, security time
	UploadedAt       *time.Time // the finalize, platform time
	UploaderKind     string     // an onboarding.Actor kind
	UploaderID       string
	UploaderName     string
	ReplacesID       string // the version this one replaces, "" for a first version
	SupersededBy     string // the version that replaced this one
	DeletedAt        *time.Time
	DeletedBy        string // the deleter's name
	ObjectRemovedAt  *time.Time
}

// Current reports whether d is the document in force of its lineage:
// available, not superseded, not deleted.
func (d Document) Current() bool {
	return d.Status == Available && d.SupersededBy == "" && d.DeletedAt == nil
}

// PendingAt reports whether d is a pending upload whose URL is still valid
// at security time now.
func (d Document) PendingAt(now time.Time) bool {
	return d.Status == Pending && d.DeletedAt == nil && now.Before(d.UploadExpiresAt)
}

// UploadedBy reports whether a uploaded d.
func (d Document) UploadedBy(a onboarding.Actor) bool {
	return d.UploaderKind == a.Kind && d.UploaderID == a.ID
}

// ObjectKey is where a document's bytes live; every version has its own.
func ObjectKey(organizationID, onboardingID, documentID string) string {
	return "org/" + organizationID + "/onboarding/" + onboardingID + "/doc/" + documentID
}

// Slot returns def's slot for documentType.
func Slot(def onboarding.GateDefinition, documentType string) (onboarding.DocumentSlot, bool) {
	i := slices.IndexFunc(def.DocumentSlots, func(s onboarding.DocumentSlot) bool { return s.DocumentType == documentType })
	if i < 0 {
		return onboarding.DocumentSlot{}, false
	}
	return def.DocumentSlots[i], true
}

// CheckFilename says what is wrong with a filename ("" when nothing): 1 to
// 200 characters of UTF-8, no path separator, no control character, not
// "." or "..".
func CheckFilename(name string) string {
	switch {
	case !utf8.ValidString(name):
		return "must be UTF-8"
	case strings.TrimSpace(name) == "":
		return "is required"
	case utf8.RuneCountInString(name) > MaxFilenameLength:
		return "must be at most 200 characters"
	case strings.ContainsAny(name, `/\`):
		return "must not contain a path separator"
	case name == "." || name == "..":
		return "must name a file"
	case strings.ContainsFunc(name, unicode.IsControl):
		return "must not contain control characters"
	}
	return ""
}
