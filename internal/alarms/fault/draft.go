package fault

import (
	"context"
	"time"

	"atcp/internal/alarms/narrator"
	"atcp/internal/auth"
)

// DraftRequest is the body of a fault-message draft.
type DraftRequest struct {
	Language   string
	Assessment string
}

// MessageDraft is a draft for review and the deadline it quotes, which
// the declaration sends back as notification.unavailability_end.
type MessageDraft struct {
	Language          string
	Subject, Body     string
	UnavailabilityEnd time.Time
	UnverifiedNumbers []string
}

// Signature is who a message is signed by: a person's e-mail, an
// integration's subject.
func Signature(p auth.Principal) string {
	if p.Email != "" {
		return p.Email
	}
	return p.Subject
}

// Draft asks the narrator for a message on the key's open alarm. 404 as
// Evidence; 422 open_ended_hold when the active fault hold has no end;
// 503 when the narrator is not configured, 502 when it fails.
func (s *Service) Draft(ctx context.Context, p auth.Principal, rawKey string, r DraftRequest) (MessageDraft, error) {
	e, err := s.Evidence(ctx, p, rawKey)
	if err != nil {
		return MessageDraft{}, err
	}
	if _, err := Deadline(e.ActiveHold, s.d.Clock.Now().UTC()); err != nil {
		return MessageDraft{}, err
	}
	d, err := s.d.Narrator.Draft(ctx, narrator.Request{
		Language: r.Language, Assessment: r.Assessment, Signature: Signature(p),
		Evidence: narrator.Evidence{
			AssetID: e.AssetID, AssetName: e.AssetName, TSO: e.TSO, RuleID: e.RuleID, RuleName: e.RuleName,
			Severity: string(e.Severity), Facts: e.Facts, SustainedSeconds: e.SustainedSeconds,
			ConcurrentRuleIDs: e.ConcurrentRuleIDs, UnavailabilityEnd: e.UnavailabilityEnd,
			UnavailabilityHours: e.UnavailabilityHours,
		},
		Reference: narrator.Reference{AlarmKey: e.AlarmKey, AlarmID: e.AlarmID, DeepLink: e.DeepLink},
	})
	if err != nil {
		return MessageDraft{}, err
	}
	unverified := d.UnverifiedNumbers
	if unverified == nil {
		unverified = []string{}
	}
	return MessageDraft{Language: r.Language, Subject: d.Subject, Body: d.Body,
		UnavailabilityEnd: e.UnavailabilityEnd, UnverifiedNumbers: unverified}, nil
}
