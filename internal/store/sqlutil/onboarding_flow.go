package sqlutil

import (
	"atcp/internal/assets"
	"atcp/internal/markets/calendar"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/comments"
	"atcp/internal/onboarding/prequal"
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
