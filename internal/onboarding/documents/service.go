package documents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/google/uuid"

	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/objstore"
	"atcp/internal/onboarding"
)

// Retention of objects (docs/onboarding.md 6), platform time. A deleted
// document's object is kept DefaultDeletedRetention for a mistaken
// deletion unless WithDeletedRetention (ATCP_OBJECT_RETENTION_DAYS) says
// otherwise. A pending or discarded upload's is kept a day after its
// presign: a constant, since it only has to outlast the upload URL
// (UploadTTL) and FinalizeGrace, and nothing else refers to the object.
const (
	DefaultDeletedRetention = 30 * 24 * time.Hour
	PendingRetention        = 24 * time.Hour
)

// FinalizeGrace is how long after its upload URL expired a pending upload
// may still be finalized: a large upload started just before the expiry
// ends after it.
const FinalizeGrace = time.Hour

// Service runs the documents of onboarding workflows. Every change goes
// through onboarding.Service.Mutate (visibility, closed workflows, the
// workflow's lock) and writes its audit entry there.
type Service struct {
	store            Store
	ob               *onboarding.Service
	objects          objstore.Store
	clk              clock.Clock // platform time: records
	sec              clock.Clock // security time: presigned URLs
	deletedRetention time.Duration
}

// Option configures a Service.
type Option func(*Service)

// WithDeletedRetention keeps a deleted document's object d (platform time)
// instead of DefaultDeletedRetention.
func WithDeletedRetention(d time.Duration) Option {
	return func(s *Service) { s.deletedRetention = d }
}

// NewService returns the documents service and registers its "documents"
// requirement and its cancel hook (pending uploads dropped) on ob.
func NewService(store Store, ob *onboarding.Service, objects objstore.Store, clk, security clock.Clock, opts ...Option) *Service {
	s := &Service{store: store, ob: ob, objects: objects, clk: clk, sec: security, deletedRetention: DefaultDeletedRetention}
	for _, o := range opts {
		o(s)
	}
	ob.AddRequirement(onboarding.RequireDocuments, s.unmet)
	ob.AddOnCancel(s.discardPending)
	return s
}

func (s *Service) now() time.Time { return s.clk.Now().UTC().Truncate(time.Microsecond) }

func notFound(id string) error {
	return errs.E(errs.NotFound, CodeDocumentNotFound, "no document %q", id)
}

// scope is who asks: a task (its role's slots only) or a manager (nil:
// every slot of the workflow).
type scope struct{ task *onboarding.Task }

// sees reports whether the caller may see documents of gate definition id.
func (sc scope) sees(definitionID string) bool {
	if sc.task == nil {
		return true
	}
	def, ok := onboarding.DefinitionByID(definitionID)
	return ok && sc.task.Works(def)
}

// UploadRequest is the body of a presigned upload.
type UploadRequest struct {
	DocumentType       string
	Filename           string
	ContentType        string
	SizeBytes          int64
	GateDefinitionID   string // "" (task side only): the first of the role's gates with a slot for the type
	ReplacesDocumentID string // "" for a first version
}

// Upload is a pending document and where to PUT its bytes.
type Upload struct {
	Document Document
	URL      objstore.Presigned
}

// check validates r's own members (locations without the body. prefix).
func (r UploadRequest) check() error {
	var v errs.Validation
	rule, ok := Rules[r.DocumentType]
	if !ok {
		v.Add("document_type", "is not a document type", r.DocumentType)
	}
	if msg := CheckFilename(r.Filename); msg != "" {
		v.Add("filename", msg, r.Filename)
	}
	if ok && !slices.Contains(rule.Types, r.ContentType) {
		v.Add("content_type", fmt.Sprintf("must be one of %v for %s", rule.Types, r.DocumentType), r.ContentType)
	}
	if ok && (r.SizeBytes < 1 || r.SizeBytes > rule.MaxSize) {
		v.Add("size_bytes", fmt.Sprintf("must be 1 to %d bytes for %s", rule.MaxSize, r.DocumentType), r.SizeBytes)
	}
	if r.ReplacesDocumentID != "" && !onboarding.ValidID(r.ReplacesDocumentID) {
		v.Add("replaces_document_id", "must be a document id", r.ReplacesDocumentID)
	}
	return v.Err()
}

// Presign creates a pending document on a workflow the manager actor sees
// and returns its presigned PUT (docs/onboarding.md #49).
func (s *Service) Presign(ctx context.Context, actor onboarding.Actor, onboardingID string, r UploadRequest) (Upload, error) {
	return s.presign(ctx, actor, onboardingID, scope{}, r)
}

// TaskPresign is Presign for a task (#11): only the role's gates.
func (s *Service) TaskPresign(ctx context.Context, t onboarding.Task, r UploadRequest) (Upload, error) {
	return s.presign(ctx, t.Actor, t.Onboarding.ID, scope{&t}, r)
}

func (s *Service) presign(ctx context.Context, actor onboarding.Actor, onboardingID string, sc scope, r UploadRequest) (Upload, error) {
	if err := r.check(); err != nil {
		return Upload{}, err
	}
	var out Upload
	err := s.ob.Mutate(ctx, actor, onboardingID, func(ctx context.Context, ob onboarding.Onboarding) error {
		g, def, err := s.gateFor(ob, sc, r)
		if err != nil {
			return err
		}
		if err := onboarding.GateLocked(g); err != nil {
			return err
		}
		slot, _ := Slot(def, r.DocumentType)
		docs, err := s.store.List(ctx, ob.OrganizationID, ob.ID)
		if err != nil {
			return err
		}
		secNow := s.sec.Now()
		if n := countFunc(docs, func(d Document) bool { return d.PendingAt(secNow) }); n >= MaxPendingUploads {
			return errs.Conflictf(CodePendingUploadLimit, "onboarding %s has %d pending uploads; finalize or let them expire first", ob.ID, n)
		}
		id := uuid.NewString()
		d := Document{ID: id, OrganizationID: ob.OrganizationID, OnboardingID: ob.ID, GateDefinitionID: def.DefinitionID,
			DocumentType: r.DocumentType, LineageID: id, Version: 1, Filename: r.Filename, ContentType: r.ContentType,
			SizeBytes: r.SizeBytes, ObjectKey: ObjectKey(ob.OrganizationID, ob.ID, id), Status: Pending, CreatedAt: s.now(),
			UploaderKind: actor.Kind, UploaderID: actor.ID, UploaderName: actor.Name, ReplacesID: r.ReplacesDocumentID}
		if r.ReplacesDocumentID != "" {
			i := slices.IndexFunc(docs, func(o Document) bool { return o.ID == r.ReplacesDocumentID })
			if i < 0 || !docs[i].Current() || docs[i].GateDefinitionID != def.DefinitionID || docs[i].DocumentType != r.DocumentType {
				return errs.E(errs.NotFound, CodeDocumentNotFound, "no current %s document %q on gate %s to replace", r.DocumentType, r.ReplacesDocumentID, def.DefinitionID)
			}
			d.LineageID = docs[i].LineageID
			for _, o := range docs {
				if o.LineageID == d.LineageID && o.Version >= d.Version {
					d.Version = o.Version + 1
				}
			}
		} else if !slot.AllowMultiple && slices.ContainsFunc(docs, inSlot(def.DefinitionID, r.DocumentType)) {
			return slotFull(def.DefinitionID, r.DocumentType)
		}
		p, err := s.objects.PresignPut(ctx, d.ObjectKey, d.ContentType, d.SizeBytes, UploadTTL)
		if err != nil {
			return err
		}
		d.UploadExpiresAt = p.Expires
		if err := s.store.Insert(ctx, d); err != nil {
			return err
		}
		out = Upload{Document: d, URL: p}
		return s.ob.Audit(ctx, actor, ob, "document.upload_started", onboarding.Target{Type: "document", ID: d.ID}, map[string][2]any{
			"gate_definition_id": {nil, d.GateDefinitionID}, "document_type": {nil, d.DocumentType}, "filename": {nil, d.Filename},
			"content_type": {nil, d.ContentType}, "size_bytes": {nil, d.SizeBytes}, "version": {nil, d.Version},
			"replaces_document_id": {nil, nullable(d.ReplacesID)},
		})
	})
	return out, err
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func countFunc[T any](s []T, f func(T) bool) int {
	n := 0
	for _, v := range s {
		if f(v) {
			n++
		}
	}
	return n
}

// inSlot matches the current documents of one slot.
func inSlot(definitionID, documentType string) func(Document) bool {
	return func(d Document) bool {
		return d.Current() && d.GateDefinitionID == definitionID && d.DocumentType == documentType
	}
}

func slotFull(definitionID, documentType string) error {
	return errs.Conflictf(CodeDocumentSlotFull, "gate %s takes one %s document and holds one; replace it (replaces_document_id)", definitionID, documentType)
}

// gateFor finds the gate r uploads to: the one named (404 gate_not_found
// when the workflow has none or the task's role does not work on it), or on
// the task side the first of the role's gates with a slot for the type.
func (s *Service) gateFor(ob onboarding.Onboarding, sc scope, r UploadRequest) (onboarding.Gate, onboarding.GateDefinition, error) {
	for _, g := range ob.Gates {
		def, ok := g.Definition()
		if !ok || !sc.sees(def.DefinitionID) {
			continue
		}
		if r.GateDefinitionID != "" {
			if def.DefinitionID != r.GateDefinitionID {
				continue
			}
			if _, ok := Slot(def, r.DocumentType); !ok {
				return g, def, errs.Invalidf("document_type", r.DocumentType, "gate %s has no slot for %s", def.DefinitionID, r.DocumentType)
			}
			return g, def, nil
		}
		if _, ok := Slot(def, r.DocumentType); ok {
			return g, def, nil
		}
	}
	if r.GateDefinitionID != "" {
		return onboarding.Gate{}, onboarding.GateDefinition{}, errs.E(errs.NotFound, onboarding.CodeGateNotFound, "no gate %q here", r.GateDefinitionID)
	}
	return onboarding.Gate{}, onboarding.GateDefinition{}, errs.Invalidf("document_type", r.DocumentType, "no gate of this task asks for %s", r.DocumentType)
}

// get reads a document the caller sees (not deleted or discarded).
func (s *Service) get(ctx context.Context, ob onboarding.Onboarding, sc scope, id string) (Document, error) {
	if !onboarding.ValidID(id) {
		return Document{}, notFound(id)
	}
	d, err := s.store.Get(ctx, ob.OrganizationID, ob.ID, id)
	if err != nil {
		return Document{}, err
	}
	if d.DeletedAt != nil || d.Status == Discarded || !sc.sees(d.GateDefinitionID) {
		return Document{}, notFound(id)
	}
	return d, nil
}

// Finalize marks a pending upload available once its object passed the
// checks of docs/onboarding.md #10, in order: it exists (409
// upload_missing), its size is the declared one and within the type's
// maximum, its sniffed type is allowed and the declared one (409
// upload_rejected with reason size_mismatch, too_large or
// type_not_allowed; the object is deleted, the row stays pending). The
// previous version is superseded and the gate moves pending →
// in_progress. Finalizing an available document returns it unchanged.
func (s *Service) Finalize(ctx context.Context, actor onboarding.Actor, onboardingID, documentID string) (Document, error) {
	ob, err := s.ob.Get(ctx, actor, onboardingID)
	if err != nil {
		return Document{}, err
	}
	return s.finalize(ctx, actor, ob, scope{}, documentID)
}

// TaskFinalize is Finalize for a task (#10).
func (s *Service) TaskFinalize(ctx context.Context, t onboarding.Task, documentID string) (Document, error) {
	return s.finalize(ctx, t.Actor, t.Onboarding, scope{&t}, documentID)
}

func (s *Service) finalize(ctx context.Context, actor onboarding.Actor, ob onboarding.Onboarding, sc scope, documentID string) (Document, error) {
	d, err := s.get(ctx, ob, sc, documentID)
	if err != nil || d.Status == Available {
		return d, err
	}
	if ob.Status.Closed() {
		return Document{}, errs.Conflictf(onboarding.CodeOnboardingClosed, "onboarding %s is %s and read-only", ob.ID, ob.Status)
	}
	if !s.sec.Now().Before(d.UploadExpiresAt.Add(FinalizeGrace)) {
		return Document{}, errs.Conflictf(CodeUploadExpired, "the upload of document %s expired; start a new one", d.ID)
	}
	// The object is read once, outside the workflow's transaction: a
	// 50 MB stream must not hold the lock.
	sum, err := s.inspect(ctx, d)
	if err != nil {
		return Document{}, err
	}
	err = s.ob.Mutate(ctx, actor, ob.ID, func(ctx context.Context, ob onboarding.Onboarding) error {
		cur, err := s.get(ctx, ob, sc, documentID)
		if err != nil || cur.Status == Available { // finalized meanwhile
			d = cur
			return err
		}
		def, _ := onboarding.DefinitionByID(cur.GateDefinitionID)
		for _, g := range ob.Gates {
			if g.DefinitionID == def.DefinitionID {
				if err := onboarding.GateLocked(g); err != nil {
					return err
				}
			}
		}
		docs, err := s.store.List(ctx, ob.OrganizationID, ob.ID)
		if err != nil {
			return err
		}
		slot, _ := Slot(def, cur.DocumentType)
		if cur.ReplacesID == "" && !slot.AllowMultiple && slices.ContainsFunc(docs, inSlot(def.DefinitionID, cur.DocumentType)) {
			return slotFull(def.DefinitionID, cur.DocumentType)
		}
		superseded := []string{}
		for _, o := range docs {
			if o.ID != cur.ID && o.LineageID == cur.LineageID && o.Current() {
				o.SupersededBy = cur.ID
				if err := s.store.Update(ctx, o); err != nil {
					return err
				}
				superseded = append(superseded, o.ID)
			}
		}
		now := s.now()
		cur.Status, cur.SHA256, cur.UploadedAt = Available, sum, &now
		if err := s.store.Update(ctx, cur); err != nil {
			return err
		}
		d = cur
		if err := s.ob.TouchGate(ctx, ob, def.Kind); err != nil {
			return err
		}
		changes := map[string][2]any{"status": {string(Pending), string(Available)}, "sha256": {nil, sum}}
		if len(superseded) > 0 {
			changes["supersedes"] = [2]any{nil, superseded}
		}
		return s.ob.Audit(ctx, actor, ob, "document.finalized", onboarding.Target{Type: "document", ID: cur.ID}, changes)
	})
	return d, err
}

// inspect checks a pending document's object and returns its SHA-256; a
// rejected object is deleted.
func (s *Service) inspect(ctx context.Context, d Document) (string, error) {
	info, err := s.objects.Stat(ctx, d.ObjectKey)
	if errs.Is(err, errs.NotFound) {
		return "", errs.Conflictf(CodeUploadMissing, "nothing was uploaded for document %s; PUT the file to its upload_url first", d.ID)
	}
	if err != nil {
		return "", err
	}
	rule := Rules[d.DocumentType]
	switch {
	case info.Size > rule.MaxSize:
		return "", s.reject(ctx, d, "too_large", "the upload holds %d bytes; %s allows at most %d", info.Size, d.DocumentType, rule.MaxSize)
	case info.Size != d.SizeBytes:
		return "", s.reject(ctx, d, "size_mismatch", "the upload holds %d bytes, not the declared %d", info.Size, d.SizeBytes)
	}
	r, err := s.objects.Open(ctx, d.ObjectKey, -1)
	if err != nil {
		return "", err
	}
	defer r.Close()
	in := NewInspector()
	if _, err := io.Copy(in, r); err != nil {
		return "", fmt.Errorf("documents: read %s: %w", d.ObjectKey, err)
	}
	if in.Size() != d.SizeBytes {
		return "", s.reject(ctx, d, "size_mismatch", "the upload holds %d bytes, not the declared %d", in.Size(), d.SizeBytes)
	}
	switch t := in.Type(); {
	case t == "" || !slices.Contains(rule.Types, t):
		return "", s.reject(ctx, d, "type_not_allowed", "the upload is not of a type %s allows (%v)", d.DocumentType, rule.Types)
	case t != d.ContentType:
		return "", s.reject(ctx, d, "type_not_allowed", "the upload is %s, not the declared %s", t, d.ContentType)
	}
	return in.SHA256(), nil
}

// reject deletes a refused upload's object (the row stays pending until it
// expires) and returns 409 upload_rejected with the reason.
func (s *Service) reject(ctx context.Context, d Document, reason, format string, args ...any) error {
	if err := s.objects.Delete(ctx, d.ObjectKey); err != nil {
		return err
	}
	e := errs.Conflictf(CodeUploadRejected, format, args...)
	e.Extensions = map[string]any{"reason": reason}
	return e
}

// Download returns a presigned GET of an available document of a workflow
// the manager actor sees, superseded versions included (#51).
func (s *Service) Download(ctx context.Context, actor onboarding.Actor, onboardingID, documentID string) (objstore.Presigned, error) {
	ob, err := s.ob.Get(ctx, actor, onboardingID)
	if err != nil {
		return objstore.Presigned{}, err
	}
	return s.download(ctx, ob, scope{}, documentID)
}

// TaskDownload is Download for a task (#9): the role's slots only.
func (s *Service) TaskDownload(ctx context.Context, t onboarding.Task, documentID string) (objstore.Presigned, error) {
	return s.download(ctx, t.Onboarding, scope{&t}, documentID)
}

func (s *Service) download(ctx context.Context, ob onboarding.Onboarding, sc scope, documentID string) (objstore.Presigned, error) {
	d, err := s.get(ctx, ob, sc, documentID)
	if err != nil {
		return objstore.Presigned{}, err
	}
	if d.Status != Available {
		return objstore.Presigned{}, notFound(documentID)
	}
	return s.objects.PresignGet(ctx, d.ObjectKey, d.Filename, DownloadTTL)
}

// Delete soft-deletes any document of a workflow the manager actor sees
// (#52): it no longer appears or gets download URLs; its object is
// removed after the deleted retention.
func (s *Service) Delete(ctx context.Context, actor onboarding.Actor, onboardingID, documentID string) error {
	return s.delete(ctx, actor, onboardingID, scope{}, documentID)
}

// TaskDelete is Delete for a task (#8): only a document the caller
// uploaded (409 not_uploader).
func (s *Service) TaskDelete(ctx context.Context, t onboarding.Task, documentID string) error {
	return s.delete(ctx, t.Actor, t.Onboarding.ID, scope{&t}, documentID)
}

func (s *Service) delete(ctx context.Context, actor onboarding.Actor, onboardingID string, sc scope, documentID string) error {
	return s.ob.Mutate(ctx, actor, onboardingID, func(ctx context.Context, ob onboarding.Onboarding) error {
		d, err := s.get(ctx, ob, sc, documentID)
		if err != nil {
			return err
		}
		if sc.task != nil && !d.UploadedBy(actor) {
			return errs.Conflictf(CodeNotUploader, "document %s was uploaded by someone else", d.ID)
		}
		for _, g := range ob.Gates {
			if g.DefinitionID == d.GateDefinitionID {
				if err := onboarding.GateLocked(g); err != nil {
					return err
				}
			}
		}
		now := s.now()
		d.DeletedAt, d.DeletedBy = &now, actor.Name
		if err := s.store.Update(ctx, d); err != nil {
			return err
		}
		return s.ob.Audit(ctx, actor, ob, "document.deleted", onboarding.Target{Type: "document", ID: d.ID}, map[string][2]any{
			"deleted_at": {nil, now}, "filename": {d.Filename, nil},
		})
	})
}

// ListFilter narrows the manager's list (#48).
type ListFilter struct {
	GateDefinitionID string
	DocumentType     string
	IncludeVersions  bool // superseded versions too
	IncludeDeleted   bool // soft-deleted documents too
	Limit, Offset    int
}

// List returns the documents of a workflow the manager actor sees:
// available and pending ones (pending while their URL is valid), by
// upload, and their total before paging.
func (s *Service) List(ctx context.Context, actor onboarding.Actor, onboardingID string, f ListFilter) ([]Document, int, error) {
	ob, err := s.ob.Get(ctx, actor, onboardingID)
	if err != nil {
		return nil, 0, err
	}
	if f.GateDefinitionID != "" && !slices.ContainsFunc(ob.Gates, func(g onboarding.Gate) bool { return g.DefinitionID == f.GateDefinitionID }) {
		return nil, 0, errs.Invalidf("query.gate_definition_id", f.GateDefinitionID, "is not a gate of onboarding %s", ob.ID)
	}
	all, err := s.store.List(ctx, ob.OrganizationID, ob.ID)
	if err != nil {
		return nil, 0, err
	}
	secNow := s.sec.Now()
	out := []Document{}
	for _, d := range all {
		switch {
		case f.GateDefinitionID != "" && d.GateDefinitionID != f.GateDefinitionID,
			f.DocumentType != "" && d.DocumentType != f.DocumentType,
			d.Status == Discarded,
			d.Status == Pending && !d.PendingAt(secNow) && d.DeletedAt == nil,
			d.DeletedAt != nil && !f.IncludeDeleted,
			d.SupersededBy != "" && !f.IncludeVersions:
			continue
		}
		out = append(out, d)
	}
	total := len(out)
	from := min(f.Offset, total)
	return out[from:min(from+f.Limit, total)], total, nil
}

// ForTask returns the documents of the task detail: the current versions
// of the slots of the gates the task's role works on (not deleted,
// available).
func (s *Service) ForTask(ctx context.Context, t onboarding.Task) ([]Document, error) {
	all, err := s.store.List(ctx, t.Onboarding.OrganizationID, t.Onboarding.ID)
	if err != nil {
		return nil, err
	}
	sc := scope{&t}
	out := []Document{}
	for _, d := range all {
		if d.Current() && sc.sees(d.GateDefinitionID) {
			out = append(out, d)
		}
	}
	return out, nil
}

// unmet is the "documents" requirement of a gate's submit: each required
// slot holds a current document.
func (s *Service) unmet(ctx context.Context, ob onboarding.Onboarding, _ onboarding.Gate, def onboarding.GateDefinition) ([]onboarding.Unmet, error) {
	docs, err := s.store.List(ctx, ob.OrganizationID, ob.ID)
	if err != nil {
		return nil, err
	}
	var out []onboarding.Unmet
	for _, slot := range def.DocumentSlots {
		if slot.Required && !slices.ContainsFunc(docs, inSlot(def.DefinitionID, slot.DocumentType)) {
			out = append(out, onboarding.Unmet{Location: "documents." + slot.DocumentType, Detail: "no " + slot.DocumentType + " document is uploaded"})
		}
	}
	return out, nil
}

// discardPending drops the pending uploads of a workflow being cancelled;
// their objects go with the housekeeping.
func (s *Service) discardPending(ctx context.Context, ob onboarding.Onboarding) error {
	docs, err := s.store.List(ctx, ob.OrganizationID, ob.ID)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if d.Status != Pending || d.DeletedAt != nil {
			continue
		}
		d.Status = Discarded
		if err := s.store.Update(ctx, d); err != nil {
			return err
		}
		if err := s.ob.Audit(ctx, onboarding.SystemActor, ob, "document.discarded", onboarding.Target{Type: "document", ID: d.ID},
			map[string][2]any{"status": {string(Pending), string(Discarded)}}); err != nil {
			return err
		}
	}
	return nil
}

// Housekeep removes the objects due for removal at due (platform time):
// those of documents deleted longer ago than the deleted retention, and of
// pending or discarded uploads presigned PendingRetention before whose URL
// has expired; the rows stay, with object_removed_at. It returns how many
// it removed.
func (s *Service) Housekeep(ctx context.Context, due time.Time) (int, error) {
	const batch = 100
	n := 0
	for {
		docs, err := s.store.Removable(ctx, due.Add(-s.deletedRetention), due.Add(-PendingRetention), s.sec.Now(), batch)
		if err != nil || len(docs) == 0 {
			return n, err
		}
		for _, d := range docs {
			if err := ctx.Err(); err != nil {
				return n, err
			}
			if err := s.objects.Delete(ctx, d.ObjectKey); err != nil {
				return n, err
			}
			now := s.now()
			d.ObjectRemovedAt = &now
			if err := s.store.Update(ctx, d); err != nil {
				return n, errors.Join(fmt.Errorf("documents: mark the object of %s removed", d.ID), err)
			}
			n++
		}
		if len(docs) < batch {
			return n, nil
		}
	}
}

// CertificateExists reports whether documentID is an available, not
// deleted prequalification_certificate of the onboarding: what a
// prequalification result may cite (prequal.Certificates).
func (s *Service) CertificateExists(ctx context.Context, organizationID, onboardingID, documentID string) (bool, error) {
	if !onboarding.ValidID(documentID) {
		return false, nil
	}
	d, err := s.store.Get(ctx, organizationID, onboardingID, documentID)
	if errs.Is(err, errs.NotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return d.DocumentType == "prequalification_certificate" && d.Status == Available && d.DeletedAt == nil, nil
}
