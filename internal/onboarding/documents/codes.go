package documents

import "atcp/internal/errs"

// Error codes of onboarding documents.
const (
	// CodeDocumentNotFound: no such document on the onboarding, deleted, or not
	// in the slots of the caller's task role (404).
	CodeDocumentNotFound errs.Code = "document_not_found"
	// CodeNotUploader: a task caller may delete only the documents it uploaded (409).
	CodeNotUploader errs.Code = "not_uploader"
	// CodeUploadMissing: finalize found no object at the presigned address (409).
	CodeUploadMissing errs.Code = "upload_missing"
	// CodeUploadRejected: the uploaded object is of the wrong size or type;
	// reason is size_mismatch, too_large or type_not_allowed (409).
	CodeUploadRejected errs.Code = "upload_rejected"
	// CodeDocumentSlotFull: the slot takes one document and holds one;
	// replace it (replaces_document_id) instead (409).
	CodeDocumentSlotFull errs.Code = "document_slot_full"
	// CodePendingUploadLimit: the onboarding has 20 pending uploads (409).
	CodePendingUploadLimit errs.Code = "pending_upload_limit"
	// CodeUploadExpired: finalize after the presigned upload address expired (409).
	CodeUploadExpired errs.Code = "upload_expired"
)
