package documents

import (
	"context"

	"atcp/internal/onboarding"
	"atcp/internal/onboarding/tasks"
)

// TaskLister is s as the task detail's list of documents
// (tasks.DocumentLister): the documents ForTask returns.
func (s *Service) TaskLister() tasks.DocumentLister { return taskLister{s} }

type taskLister struct{ s *Service }

func (l taskLister) ForTask(ctx context.Context, t onboarding.Task) ([]tasks.TaskDocument, error) {
	docs, err := l.s.ForTask(ctx, t)
	if err != nil {
		return nil, err
	}
	out := make([]tasks.TaskDocument, len(docs))
	for i, d := range docs {
		out[i] = tasks.TaskDocument{ID: d.ID, OnboardingID: d.OnboardingID, GateDefinitionID: d.GateDefinitionID, DocumentType: d.DocumentType,
			Filename: d.Filename, SizeBytes: d.SizeBytes, ContentType: d.ContentType, UploadedByUserName: d.UploaderName, Version: d.Version}
		// ForTask lists available documents only, which are finalized.
		if d.UploadedAt != nil {
			out[i].UploadedAt = *d.UploadedAt
		}
	}
	return out, nil
}
