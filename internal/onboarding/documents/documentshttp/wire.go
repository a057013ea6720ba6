package documentshttp

import (
	"time"

	"atcp/internal/objstore"
	"atcp/internal/onboarding/documents"
)

// TaskSideDocument is an onboarding document as a task's upload sees it,
// with its status.
type TaskSideDocument struct {
	ID                 string     `json:"id" format:"uuid"`
	OnboardingID       string     `json:"onboarding_id" format:"uuid"`
	GateDefinitionID   string     `json:"gate_definition_id"`
	DocumentType       string     `json:"document_type"`
	Filename           string     `json:"filename"`
	SizeBytes          int64      `json:"size_bytes"`
	ContentType        string     `json:"content_type"`
	UploadedAt         *time.Time `json:"uploaded_at" doc:"When it was finalized; null while pending."`
	UploadedByUserName string     `json:"uploaded_by_user_name"`
	Version            int        `json:"version" doc:"1 for a first upload, one more for each replacement."`
	Status             string     `json:"status" enum:"pending,available" doc:"pending until finalized."`
}

// OnboardingDocument is a document as the manager side sees it: also its
// hash, its place among the versions and its deletion.
type OnboardingDocument struct {
	ID                 string     `json:"id" format:"uuid"`
	OnboardingID       string     `json:"onboarding_id" format:"uuid"`
	GateDefinitionID   string     `json:"gate_definition_id"`
	DocumentType       string     `json:"document_type"`
	Filename           string     `json:"filename"`
	SizeBytes          int64      `json:"size_bytes"`
	ContentType        string     `json:"content_type"`
	UploadedAt         *time.Time `json:"uploaded_at" doc:"When it was finalized; null while pending."`
	UploadedByUserName string     `json:"uploaded_by_user_name"`
	Version            int        `json:"version"`
	Status             string     `json:"status" enum:"pending,available"`
	SHA256             *string    `json:"sha256" doc:"Hex SHA-256 of the content; null while pending."`
	ReplacesDocumentID *string    `json:"replaces_document_id" doc:"The version this one replaced."`
	SupersededBy       *string    `json:"superseded_by" doc:"The version that replaced this one; null for the current one."`
	DeletedAt          *time.Time `json:"deleted_at" doc:"Set on soft-deleted documents (include_deleted)."`
	DeletedByName      *string    `json:"deleted_by_name"`
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toDocument(d documents.Document) TaskSideDocument {
	return TaskSideDocument{ID: d.ID, OnboardingID: d.OnboardingID, GateDefinitionID: d.GateDefinitionID, DocumentType: d.DocumentType,
		Filename: d.Filename, SizeBytes: d.SizeBytes, ContentType: d.ContentType, UploadedAt: d.UploadedAt,
		UploadedByUserName: d.UploaderName, Version: d.Version, Status: string(d.Status)}
}

func toManagerDocument(d documents.Document) OnboardingDocument {
	return OnboardingDocument{ID: d.ID, OnboardingID: d.OnboardingID, GateDefinitionID: d.GateDefinitionID, DocumentType: d.DocumentType,
		Filename: d.Filename, SizeBytes: d.SizeBytes, ContentType: d.ContentType, UploadedAt: d.UploadedAt,
		UploadedByUserName: d.UploaderName, Version: d.Version, Status: string(d.Status), SHA256: opt(d.SHA256),
		ReplacesDocumentID: opt(d.ReplacesID), SupersededBy: opt(d.SupersededBy), DeletedAt: d.DeletedAt, DeletedByName: opt(d.DeletedBy)}
}

// DocumentUploadHeaders are the headers to send with the upload.
type DocumentUploadHeaders struct {
	ContentType string `json:"Content-Type" doc:"The declared content_type; the presigned URL is bound to it."`
}

// TaskDocumentUpload is the answer of a presigned upload (task side).
type TaskDocumentUpload struct {
	Document      TaskSideDocument      `json:"document"`
	UploadURL     string                `json:"upload_url" format:"uri"`
	UploadMethod  string                `json:"upload_method" enum:"PUT"`
	UploadHeaders DocumentUploadHeaders `json:"upload_headers"`
	ExpiresAt     time.Time             `json:"expires_at" doc:"The URL's expiry: 15 minutes."`
}

// OnboardingDocumentUpload is the answer of a presigned upload (manager side).
type OnboardingDocumentUpload struct {
	Document      OnboardingDocument    `json:"document"`
	UploadURL     string                `json:"upload_url" format:"uri"`
	UploadMethod  string                `json:"upload_method" enum:"PUT"`
	UploadHeaders DocumentUploadHeaders `json:"upload_headers"`
	ExpiresAt     time.Time             `json:"expires_at" doc:"The URL's expiry: 15 minutes."`
}

func uploadParts(p objstore.Presigned) (string, string, DocumentUploadHeaders, time.Time) {
	return p.URL, p.Method, DocumentUploadHeaders{ContentType: p.Headers.Get("Content-Type")}, p.Expires.UTC()
}

// DocumentDownload is a presigned download address.
type DocumentDownload struct {
	DownloadURL string    `json:"download_url" format:"uri" doc:"GET it within 5 minutes; it answers the file as an attachment under its filename."`
	ExpiresAt   time.Time `json:"expires_at"`
}

// OnboardingDocumentList is the body of GET …/documents.
type OnboardingDocumentList struct {
	Documents []OnboardingDocument `json:"documents" nullable:"false" doc:"By presign time."`
	Total     int                  `json:"total"`
	Limit     int                  `json:"limit"`
	Offset    int                  `json:"offset"`
}

// TaskDocumentUploadRequest is the body of a presigned upload.
type TaskDocumentUploadRequest struct {
	DocumentType       string `json:"document_type" enum:"installation_photo_mdevice,installation_photo_antenna,test_results_signed,betr,single_line_diagram,dpl_signed,prequalification_certificate,other"`
	Filename           string `json:"filename" minLength:"1" maxLength:"200" doc:"No path separators or control characters."`
	ContentType        string `json:"content_type" enum:"image/jpeg,image/png,image/heic,application/pdf,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" doc:"One the document type allows; finalize checks the content against it."`
	SizeBytes          int64  `json:"size_bytes" minimum:"1" maximum:"50000000" doc:"The exact size of the file; at most the type's maximum (25 MB for photos, else 50 MB)."`
	GateDefinitionID   string `json:"gate_definition_id,omitempty" required:"false" doc:"The gate whose slot takes the document; by default the first of the role's gates with a slot for the type."`
	ReplacesDocumentID string `json:"replaces_document_id,omitempty" required:"false" format:"uuid" doc:"TaskDocumentUpload a new version of this current document."`
}

// OnboardingDocumentUploadRequest is the body of the manager's presigned upload.
type OnboardingDocumentUploadRequest struct {
	DocumentType       string `json:"document_type" enum:"installation_photo_mdevice,installation_photo_antenna,test_results_signed,betr,single_line_diagram,dpl_signed,prequalification_certificate,other"`
	Filename           string `json:"filename" minLength:"1" maxLength:"200" doc:"No path separators or control characters."`
	ContentType        string `json:"content_type" enum:"image/jpeg,image/png,image/heic,application/pdf,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" doc:"One the document type allows; finalize checks the content against it."`
	SizeBytes          int64  `json:"size_bytes" minimum:"1" maximum:"50000000" doc:"The exact size of the file; at most the type's maximum (25 MB for photos, else 50 MB)."`
	GateDefinitionID   string `json:"gate_definition_id" minLength:"1" doc:"The gate whose slot takes the document."`
	ReplacesDocumentID string `json:"replaces_document_id,omitempty" required:"false" format:"uuid" doc:"TaskDocumentUpload a new version of this current document."`
}
