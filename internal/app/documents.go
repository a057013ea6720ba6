package app

import (
	"context"
	"time"

	"atcp/internal/worker"
)

// documentJobs remove the stored objects of deleted onboarding documents
// and of abandoned uploads once their retention has passed
// (docs/onboarding.md 6); the rows stay for the audit trail.
func (a *App) documentJobs() []worker.Job {
	return []worker.Job{
		{Name: "onboarding-document-objects", Every: time.Hour, Offset: 45 * time.Minute, Run: func(ctx context.Context, due time.Time) error {
			n, err := a.Documents.Housekeep(ctx, due)
			if n > 0 {
				a.Log.Info("onboarding document objects removed", "objects", n)
			}
			return err
		}},
	}
}
