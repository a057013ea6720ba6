// Package documentshttp serves onboarding documents: the task side
// (/v1/onboarding-tasks/{onboarding_id}/documents/…, document 3 endpoints
// 8–11) and the manager side (/v1/onboardings/{onboarding_id}/documents,
// 48–52), docs/onboarding.md 4.4 and 5.F.
package documentshttp

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/documents"
	"atcp/internal/onboarding/onboardinghttp"
	"atcp/internal/onboarding/tasks"
	"atcp/internal/onboarding/tasks/taskshttp"
)

type handler struct {
	svc   *documents.Service
	ob    *onboarding.Service
	tasks *tasks.Service
}

// detail answers the task detail of t once a mutation of its documents
// is done: the workflow is read again, as the mutation may have moved a
// gate.
func (h handler) detail(ctx context.Context, t onboarding.Task) (*httpapi.Output[taskshttp.TaskDetail], error) {
	ob, err := h.ob.Get(ctx, t.Actor, t.Onboarding.ID)
	if err != nil {
		return nil, err
	}
	t.Onboarding = ob
	body, err := taskshttp.Detail(ctx, h.tasks, t)
	if err != nil {
		return nil, err
	}
	return &httpapi.Output[taskshttp.TaskDetail]{Body: body}, nil
}

// change runs do on the document of a task endpoint and answers the task
// detail.
func (h handler) change(ctx context.Context, in *taskDocumentInput,
	do func(ctx context.Context, t onboarding.Task, documentID string) error) (*httpapi.Output[taskshttp.TaskDetail], error) {
	if err := malformed(in.OnboardingID, in.DocumentID); err != nil {
		return nil, err
	}
	ctx, t, err := onboardinghttp.Task(ctx, h.ob, in.OnboardingID, in.Role, in.PreviewRole)
	if err != nil {
		return nil, err
	}
	if err := do(ctx, t, in.DocumentID); err != nil {
		return nil, err
	}
	return h.detail(ctx, t)
}

// malformed refuses a malformed uuid in the path where document 3 lists 400.
func malformed(ids ...string) error {
	for _, id := range ids {
		if !onboarding.ValidID(id) {
			return errs.E(errs.Malformed, errs.CodeMalformedRequest, "%q is not a uuid", id)
		}
	}
	return nil
}

type taskPresignInput struct {
	OnboardingID string `path:"onboarding_id"`
	Role         string `query:"role" doc:"The task role to act as, when the caller holds several on the onboarding."`
	PreviewRole  string `header:"X-Onboarding-Preview-Role" doc:"Platform and organisation users: act as this task role (mutations need onboarding.write)."`
	Body         TaskDocumentUploadRequest
}

type taskDocumentInput struct {
	OnboardingID string `path:"onboarding_id"`
	DocumentID   string `path:"document_id"`
	Role         string `query:"role" doc:"The task role to act as, when the caller holds several on the onboarding."`
	PreviewRole  string `header:"X-Onboarding-Preview-Role" doc:"Platform and organisation users: act as this task role (mutations need onboarding.write)."`
}

type presignInput struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
	Body         OnboardingDocumentUploadRequest
}

type documentInput struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
	DocumentID   string `path:"document_id" doc:"A malformed id is 404."`
}

type listInput struct {
	OnboardingID     string `path:"onboarding_id" doc:"A malformed id is 404."`
	GateDefinitionID string `query:"gate_definition_id" doc:"Only the documents of this gate; one the workflow has not is 422."`
	DocumentType     string `query:"document_type" enum:"installation_photo_mdevice,installation_photo_antenna,test_results_signed,betr,single_line_diagram,dpl_signed,prequalification_certificate,other"`
	IncludeVersions  bool   `query:"include_versions" doc:"Superseded versions too."`
	IncludeDeleted   bool   `query:"include_deleted" doc:"Soft-deleted documents too, with deleted_at and deleted_by_name."`
	onboardinghttp.Page
}

type taskUploadOutput struct {
	Body TaskDocumentUpload
}

type uploadOutput struct {
	Body OnboardingDocumentUpload
}

func (r TaskDocumentUploadRequest) request() documents.UploadRequest {
	return documents.UploadRequest{DocumentType: r.DocumentType, Filename: r.Filename, ContentType: r.ContentType, SizeBytes: r.SizeBytes,
		GateDefinitionID: r.GateDefinitionID, ReplacesDocumentID: r.ReplacesDocumentID}
}

const (
	taskNotVisible = "404 task_not_found when the onboarding is not visible or the caller does not hold the role; 422 for a role or " +
		"X-Onboarding-Preview-Role that is not a task role."
	docNotVisible = "404 document_not_found when the document is unknown, deleted, of another onboarding or not in the slots of the role's gates."
	closed        = "409 onboarding_closed when the workflow is completed or cancelled."
	finalizeRules = "The checks, in order: an object was uploaded (409 upload_missing); its size is the declared size_bytes and within the " +
		"type's maximum (409 upload_rejected, reason size_mismatch or too_large); its sniffed type (JPEG, PNG, HEIC, PDF, CSV, XLSX) is " +
		"allowed for the document type and is the declared content_type (409 upload_rejected, reason type_not_allowed). A rejected " +
		"upload's object is deleted and the document stays pending until it expires. On success the SHA-256 is stored, the version it " +
		"replaces is superseded and the gate moves pending → in_progress. Finalizing an available document changes nothing. 409 " +
		"upload_expired an hour after the upload URL expired; 409 document_slot_full when the slot takes one document and another " +
		"was finalized meanwhile; 409 gate_locked while the gate is submitted, passed or waived."
	presignRules = "Creates a pending document and a presigned PUT address valid 15 minutes; PUT the file's bytes to upload_url with " +
		"upload_headers, then finalize. 404 gate_not_found for a gate the workflow (or the role) has not; 404 document_not_found when " +
		"replaces_document_id is not a current document of the slot; 409 document_slot_full when the slot takes one document and holds " +
		"one (replace it instead); 409 gate_locked while the gate is submitted, passed or waived; 409 pending_upload_limit at 20 " +
		"pending uploads on the onboarding; 422 for a type, size or filename the document type does not allow."
)

// Register adds the document endpoints to s; the task side's finalize and
// delete answer the task detail of tsk.
func Register(s *httpapi.Server, svc *documents.Service, ob *onboarding.Service, tsk *tasks.Service) {
	h := handler{svc: svc, ob: ob, tasks: tsk}
	tags := onboardinghttp.Tags(s)
	taskBase := "/v1/onboarding-tasks/{onboarding_id}/documents"
	base := "/v1/onboardings/{onboarding_id}/documents"

	httpapi.Register(s, huma.Operation{
		OperationID: "delete-onboarding-task-document", Method: http.MethodDelete, Path: taskBase + "/{document_id}", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, taskshttp.ExampleAfterUpload),
		Summary:   "Delete a document the caller uploaded",
		Description: "Soft-deletes the document: it no longer appears or receives download URLs; its stored object is removed later. " +
			"Answers the task detail (as GET /v1/onboarding-tasks/{onboarding_id}). 400 for a malformed uuid. " + taskNotVisible + " " + docNotVisible + " 409 not_uploader " +
			"when someone else uploaded it; 409 gate_locked while its gate is submitted, passed or waived; " + closed,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.TaskOr(auth.OnboardingWrite), func(ctx context.Context, in *taskDocumentInput) (*httpapi.Output[taskshttp.TaskDetail], error) {
		return h.change(ctx, in, svc.TaskDelete)
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "download-onboarding-task-document", Method: http.MethodGet, Path: taskBase + "/{document_id}/download", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleDownload),
		Summary:   "Get a download address of a document",
		Description: "A presigned GET address valid 5 minutes; it answers the file as an attachment (Content-Disposition filename*). " +
			taskNotVisible + " " + docNotVisible + " Also 404 for a pending document.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.TaskOr(auth.OnboardingRead), func(ctx context.Context, in *taskDocumentInput) (*httpapi.Output[DocumentDownload], error) {
		ctx, t, err := onboardinghttp.Task(ctx, ob, in.OnboardingID, in.Role, in.PreviewRole)
		if err != nil {
			return nil, err
		}
		p, err := svc.TaskDownload(ctx, t, in.DocumentID)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[DocumentDownload]{Body: DocumentDownload{DownloadURL: p.URL, ExpiresAt: p.Expires.UTC()}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "finalize-onboarding-task-document", Method: http.MethodPost, Path: taskBase + "/{document_id}/finalize", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, taskshttp.ExampleAfterUpload),
		Summary:   "Finalize an uploaded document",
		Description: "Marks a pending upload available once its bytes are at the presigned address; answers the task detail (as GET " +
			"/v1/onboarding-tasks/{onboarding_id}). " + finalizeRules + " 400 for a malformed uuid. " + taskNotVisible + " " + docNotVisible + " " + closed,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.TaskOr(auth.OnboardingWrite), func(ctx context.Context, in *taskDocumentInput) (*httpapi.Output[taskshttp.TaskDetail], error) {
		return h.change(ctx, in, func(ctx context.Context, t onboarding.Task, id string) error {
			_, err := svc.TaskFinalize(ctx, t, id)
			return err
		})
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "presign-onboarding-task-document", Method: http.MethodPost, Path: taskBase + "/presigned-upload", Tags: tags,
		DefaultStatus: http.StatusCreated,
		RequestBody:   httpapi.RequestExample(exampleTaskPresign), Responses: httpapi.ResponseExample(http.StatusCreated, exampleTaskUpload),
		Summary:     "Start the upload of a document",
		Description: presignRules + " Only the slots of the gates the role owns or contributes to. " + taskNotVisible + " " + closed,
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.TaskOr(auth.OnboardingWrite), func(ctx context.Context, in *taskPresignInput) (*taskUploadOutput, error) {
		ctx, t, err := onboardinghttp.Task(ctx, ob, in.OnboardingID, in.Role, in.PreviewRole)
		if err != nil {
			return nil, err
		}
		u, err := svc.TaskPresign(ctx, t, in.Body.request())
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		out := TaskDocumentUpload{Document: toDocument(u.Document)}
		out.UploadURL, out.UploadMethod, out.UploadHeaders, out.ExpiresAt = uploadParts(u.URL)
		return &taskUploadOutput{Body: out}, nil
	})

	read, write := httpapi.Scopes(auth.OnboardingRead), httpapi.Scopes(auth.OnboardingWrite)
	const notVisible = "404 onboarding_not_found when the workflow is unknown or of another organisation."

	httpapi.Register(s, huma.Operation{
		OperationID: "list-onboarding-documents", Method: http.MethodGet, Path: base, Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleList),
		Summary:   "List the documents of an onboarding",
		Description: "Available documents and pending uploads whose address is still valid, by presign time; superseded versions with " +
			"include_versions, soft-deleted ones with include_deleted. " + notVisible,
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, read, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *listInput) (*httpapi.Output[OnboardingDocumentList], error) {
		docs, total, err := svc.List(ctx, a, in.OnboardingID, documents.ListFilter{GateDefinitionID: in.GateDefinitionID,
			DocumentType: in.DocumentType, IncludeVersions: in.IncludeVersions, IncludeDeleted: in.IncludeDeleted, Limit: in.Limit, Offset: in.Offset})
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[OnboardingDocumentList]{Body: OnboardingDocumentList{Documents: httpapi.Map(docs, toManagerDocument), Total: total,
			Limit: in.Limit, Offset: in.Offset}}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "presign-onboarding-document", Method: http.MethodPost, Path: base + "/presigned-upload", Tags: tags,
		DefaultStatus: http.StatusCreated,
		RequestBody:   httpapi.RequestExample(examplePresign), Responses: httpapi.ResponseExample(http.StatusCreated, exampleUpload),
		Summary:     "Start the upload of a document to an onboarding",
		Description: presignRules + " Any slot of the workflow's gates. " + notVisible + " " + closed,
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *presignInput) (*uploadOutput, error) {
		// The manager's body has the task side's members, with other tags.
		u, err := svc.Presign(ctx, a, in.OnboardingID, TaskDocumentUploadRequest(in.Body).request())
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		out := OnboardingDocumentUpload{Document: toManagerDocument(u.Document)}
		out.UploadURL, out.UploadMethod, out.UploadHeaders, out.ExpiresAt = uploadParts(u.URL)
		return &uploadOutput{Body: out}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "finalize-onboarding-document", Method: http.MethodPost, Path: base + "/{document_id}/finalize", Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleDocument),
		Summary:     "Finalize an uploaded document of an onboarding",
		Description: "Marks a pending upload available once its bytes are at the presigned address; answers the document. " + finalizeRules + " " + notVisible + " 404 document_not_found when the document is unknown or deleted. " + closed,
		Errors:      []int{http.StatusNotFound, http.StatusConflict},
	}, write, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *documentInput) (*httpapi.Output[OnboardingDocument], error) {
		d, err := svc.Finalize(ctx, a, in.OnboardingID, in.DocumentID)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[OnboardingDocument]{Body: toManagerDocument(d)}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "download-onboarding-document", Method: http.MethodGet, Path: base + "/{document_id}/download", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleDownload),
		Summary:   "Get a download address of a document of an onboarding",
		Description: "A presigned GET address valid 5 minutes, also for superseded versions. " + notVisible +
			" 404 document_not_found when the document is unknown, deleted or pending.",
		Errors: []int{http.StatusNotFound},
	}, read, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *documentInput) (*httpapi.Output[DocumentDownload], error) {
		p, err := svc.Download(ctx, a, in.OnboardingID, in.DocumentID)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[DocumentDownload]{Body: DocumentDownload{DownloadURL: p.URL, ExpiresAt: p.Expires.UTC()}}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "delete-onboarding-document", Method: http.MethodDelete, Path: base + "/{document_id}", Tags: tags,
		DefaultStatus: http.StatusNoContent,
		Summary:       "Delete a document of an onboarding",
		Description: "Soft-deletes any document of the workflow (not only one's own): it no longer appears or receives download URLs; " +
			"its stored object is removed 30 days later. " + notVisible + " 404 document_not_found when the document is unknown or " +
			"already deleted; 409 gate_locked while its gate is submitted, passed or waived; " + closed,
		Errors: []int{http.StatusNotFound, http.StatusConflict},
	}, write, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *documentInput) (*struct{}, error) {
		return nil, svc.Delete(ctx, a, in.OnboardingID, in.DocumentID)
	}))
}
