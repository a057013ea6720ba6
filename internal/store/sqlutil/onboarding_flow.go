package sqlutil

import (
	"encoding/json"
	"fmt"

	"atcp/internal/assets"
	"atcp/internal/markets/calendar"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/comments"
	"atcp/internal/onboarding/prequal"
	"atcp/internal/onboarding/reminders"
)

// CommentColumns are the onboarding_comments columns in the order of
// CommentValues and CommentScan.
var CommentColumns = []string{
	"organization_id", "onboarding_id", "comment_id", "gate_id", "body", "visibility", "author_kind", "author_id", "author_name",
	"author_role", "created_at",
}

// CommentList is CommentColumns comma-separated.
var CommentList = columnList("", CommentColumns)

// CommentValues are c's CommentColumns.
func CommentValues(c comments.Comment, in Instants) []any {
	return []any{c.OrganizationID, c.OnboardingID, c.ID, c.GateID, c.Body, string(c.Visibility), c.AuthorKind, c.AuthorID, c.AuthorName,
		string(c.AuthorRole), in.Encode(&c.CreatedAt)}
}

// CommentScan returns the scan destinations of CommentColumns and the
// function building the comment after the scan.
func CommentScan(in Instants) ([]any, func() comments.Comment) {
	var c comments.Comment
	var vis, role string
	at, getAt := in.Scan()
	dest := []any{&c.OrganizationID, &c.OnboardingID, &c.ID, &c.GateID, &c.Body, &vis, &c.AuthorKind, &c.AuthorID, &c.AuthorName, &role, at}
	return dest, func() comments.Comment {
		c.Visibility, c.AuthorRole, c.CreatedAt = comments.Visibility(vis), onboarding.TaskRole(role), *getAt()
		return c
	}
}

// PrequalColumns are the onboarding_prequalifications columns in the order
// of PrequalValues and PrequalScan; the first three are its key.
var PrequalColumns = []string{
	"organization_id", "onboarding_id", "prequalification_id", "product", "tso", "requested_mw", "submitted_on", "tso_reference", "status",
	"prequalified_mw", "valid_from", "decided_on", "decision_note", "certificate_document_id", "withdraw_reason", "recorded_by",
	"created_at", "updated_at",
}

// PrequalList is PrequalColumns comma-separated.
var PrequalList = columnList("", PrequalColumns)

// PrequalValues are p's PrequalColumns.
func PrequalValues(p prequal.Prequalification, in Instants) []any {
	return []any{p.OrganizationID, p.OnboardingID, p.ID, string(p.Product), string(p.TSO), p.RequestedMW, p.SubmittedOn.String(),
		p.TSOReference, string(p.Status), p.PrequalifiedMW, dayText(p.ValidFrom), dayText(p.DecidedOn), p.DecisionNote,
		p.CertificateDocumentID, p.WithdrawReason, p.RecordedBy, in.Encode(&p.CreatedAt), in.Encode(&p.UpdatedAt)}
}

// PrequalScan returns the scan destinations of PrequalColumns and the
// function building the prequalification after the scan.
func PrequalScan(in Instants) ([]any, func() (prequal.Prequalification, error)) {
	var p prequal.Prequalification
	var product, tso, submitted, status string
	var validFrom, decidedOn *string
	created, getCreated := in.Scan()
	updated, getUpdated := in.Scan()
	dest := []any{&p.OrganizationID, &p.OnboardingID, &p.ID, &product, &tso, &p.RequestedMW, &submitted, &p.TSOReference, &status,
		&p.PrequalifiedMW, &validFrom, &decidedOn, &p.DecisionNote, &p.CertificateDocumentID, &p.WithdrawReason, &p.RecordedBy,
		created, updated}
	return dest, func() (prequal.Prequalification, error) {
		p.Product, p.TSO, p.Status = prequal.Product(product), assets.TSO(tso), prequal.Status(status)
		p.CreatedAt, p.UpdatedAt = *getCreated(), *getUpdated()
		var err error
		if p.SubmittedOn, err = calendar.ParseDay(submitted); err != nil {
			return p, err
		}
		if p.ValidFrom, err = parseDay(validFrom); err != nil {
			return p, err
		}
		p.DecidedOn, err = parseDay(decidedOn)
		return p, err
	}
}

// ReminderColumns are the onboarding_reminders columns in the order of
// ReminderValues and ReminderScan.
var ReminderColumns = []string{
	"organization_id", "onboarding_id", "reminder_id", "gate_id", "kind", "due_on", "recipients_json", "message", "delivery_status",
	"enqueued_at", "created_by",
}

// ReminderList is ReminderColumns comma-separated.
var ReminderList = columnList("", ReminderColumns)

// ReminderValues are r's ReminderColumns.
func ReminderValues(r reminders.Reminder, in Instants) ([]any, error) {
	to := r.Recipients
	if to == nil {
		to = []reminders.Recipient{}
	}
	recipients, err := json.Marshal(to)
	if err != nil {
		return nil, err
	}
	return []any{r.OrganizationID, r.OnboardingID, r.ID, r.GateID, string(r.Kind), r.DueOn.String(), string(recipients), r.Message,
		string(r.Delivery), in.Encode(&r.EnqueuedAt), r.CreatedBy}, nil
}

// ReminderScan returns the scan destinations of ReminderColumns and the
// function building the reminder after the scan.
func ReminderScan(in Instants) ([]any, func() (reminders.Reminder, error)) {
	var r reminders.Reminder
	var kind, due, recipients, delivery string
	at, getAt := in.Scan()
	dest := []any{&r.OrganizationID, &r.OnboardingID, &r.ID, &r.GateID, &kind, &due, &recipients, &r.Message, &delivery, at, &r.CreatedBy}
	return dest, func() (reminders.Reminder, error) {
		r.Kind, r.Delivery, r.EnqueuedAt = reminders.Kind(kind), reminders.Delivery(delivery), *getAt()
		if err := json.Unmarshal([]byte(recipients), &r.Recipients); err != nil {
			return r, fmt.Errorf("reminder recipients: %w", err)
		}
		var err error
		r.DueOn, err = calendar.ParseDay(due)
		return r, err
	}
}

// PolicyJSON is the text of a reminder policy.
func PolicyJSON(p reminders.Policy) (string, error) {
	b, err := json.Marshal(p)
	return string(b), err
}

// ParsePolicy reads a stored reminder policy; "" is the default one.
func ParsePolicy(s string) (reminders.Policy, error) {
	if s == "" {
		return reminders.DefaultPolicy(), nil
	}
	var p reminders.Policy
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return p, fmt.Errorf("reminder policy: %w", err)
	}
	return p, nil
}
