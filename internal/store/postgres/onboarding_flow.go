package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/comments"
	"atcp/internal/onboarding/prequal"
	"atcp/internal/onboarding/reminders"
	"atcp/internal/store/sqlutil"
)

// OnboardingComments returns the onboarding comment store.
func (db *DB) OnboardingComments() comments.Store { return commentStore{db} }

type commentStore struct{ db *DB }

func (s commentStore) Insert(ctx context.Context, c comments.Comment) (err error) {
	defer sqlutil.Wrap(&err, "onboarding comments: insert")
	_, err = s.db.conn(ctx).Exec(ctx, `INSERT INTO onboarding_comments (`+sqlutil.CommentList+`) VALUES (`+
		sqlutil.Placeholders(len(sqlutil.CommentColumns), 1, dollar)+`)`, sqlutil.CommentValues(c, sqlutil.PostgresInstants)...)
	return err
}

func (s commentStore) List(ctx context.Context, v auth.Visibility, onboardingID string, f comments.Filter) (_ []comments.Comment, err error) {
	defer sqlutil.Wrap(&err, "onboarding comments: list")
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT `+sqlutil.CommentList+` FROM onboarding_comments
		WHERE ($1 OR organization_id = $2) AND onboarding_id = $3 AND ($4 = '' OR gate_id = $4) AND ($5 = '' OR visibility = $5)
		ORDER BY created_at DESC, comment_id DESC`, v.All, v.OrganizationID, onboardingID, f.GateID, string(f.Visibility))
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (comments.Comment, error) {
		dest, get := sqlutil.CommentScan(sqlutil.PostgresInstants)
		if err := row.Scan(dest...); err != nil {
			return comments.Comment{}, err
		}
		return get(), nil
	})
	if out == nil {
		out = []comments.Comment{}
	}
	return out, err
}

// OnboardingPrequalifications returns the prequalification store; the
// partial unique index onboarding_prequalifications_product keeps one
// prequalification that is not withdrawn per product.
func (db *DB) OnboardingPrequalifications() prequal.Store { return prequalStore{db} }

type prequalStore struct{ db *DB }

func prequalNotFound(id string) error {
	return errs.E(errs.NotFound, prequal.CodePrequalificationNotFound, "no prequalification %q", id)
}

func (s prequalStore) Insert(ctx context.Context, p prequal.Prequalification) (err error) {
	defer sqlutil.Wrap(&err, "onboarding prequalifications: insert")
	_, err = s.db.conn(ctx).Exec(ctx, `INSERT INTO onboarding_prequalifications (`+sqlutil.PrequalList+`) VALUES (`+
		sqlutil.Placeholders(len(sqlutil.PrequalColumns), 1, dollar)+`)`, sqlutil.PrequalValues(p, sqlutil.PostgresInstants)...)
	if isUniqueViolation(err) {
		return errs.Conflictf(prequal.CodePrequalificationExists, "product %s already has a prequalification that is not withdrawn", p.Product)
	}
	return err
}

func scanPrequal(row pgx.Row) (prequal.Prequalification, error) {
	dest, get := sqlutil.PrequalScan(sqlutil.PostgresInstants)
	if err := row.Scan(dest...); err != nil {
		return prequal.Prequalification{}, err
	}
	return get()
}

func (s prequalStore) Get(ctx context.Context, v auth.Visibility, onboardingID, id string) (_ prequal.Prequalification, err error) {
	defer sqlutil.Wrap(&err, "onboarding prequalifications: get")
	p, err := scanPrequal(s.db.conn(ctx).QueryRow(ctx, `SELECT `+sqlutil.PrequalList+` FROM onboarding_prequalifications
		WHERE ($1 OR organization_id = $2) AND onboarding_id = $3 AND prequalification_id = $4`, v.All, v.OrganizationID, onboardingID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return p, prequalNotFound(id)
	}
	return p, err
}

func (s prequalStore) List(ctx context.Context, v auth.Visibility, onboardingID string) (_ []prequal.Prequalification, err error) {
	defer sqlutil.Wrap(&err, "onboarding prequalifications: list")
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT `+sqlutil.PrequalList+` FROM onboarding_prequalifications
		WHERE ($1 OR organization_id = $2) AND onboarding_id = $3 ORDER BY created_at, prequalification_id`, v.All, v.OrganizationID, onboardingID)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (prequal.Prequalification, error) { return scanPrequal(row) })
	if out == nil {
		out = []prequal.Prequalification{}
	}
	return out, err
}

func (s prequalStore) Update(ctx context.Context, p prequal.Prequalification) (err error) {
	defer sqlutil.Wrap(&err, "onboarding prequalifications: update")
	vals := sqlutil.PrequalValues(p, sqlutil.PostgresInstants)
	tag, err := s.db.conn(ctx).Exec(ctx, `UPDATE onboarding_prequalifications SET status = $1, prequalified_mw = $2, valid_from = $3,
		decided_on = $4, decision_note = $5, certificate_document_id = $6, withdraw_reason = $7, recorded_by = $8, updated_at = $9
		WHERE organization_id = $10 AND onboarding_id = $11 AND prequalification_id = $12`,
		vals[8], vals[9], vals[10], vals[11], vals[12], vals[13], vals[14], vals[15], vals[17], vals[0], vals[1], vals[2])
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return prequalNotFound(p.ID)
	}
	return nil
}

// OnboardingReminders returns the reminder store; the partial unique
// index onboarding_reminders_due records an automatic reminder once.
func (db *DB) OnboardingReminders() reminders.Store { return reminderStore{db} }

type reminderStore struct{ db *DB }

func (s reminderStore) Policy(ctx context.Context, v auth.Visibility, onboardingID string) (_ reminders.Policy, err error) {
	defer sqlutil.Wrap(&err, "onboarding reminders: policy")
	if !onboarding.ValidID(onboardingID) {
		return reminders.Policy{}, onboardingNotFound(onboardingID)
	}
	var text string
	err = s.db.conn(ctx).QueryRow(ctx, `SELECT reminder_policy_json FROM onboardings WHERE ($1 OR organization_id = $2) AND onboarding_id = $3`,
		v.All, v.OrganizationID, onboardingID).Scan(&text)
	if errors.Is(err, pgx.ErrNoRows) {
		return reminders.Policy{}, onboardingNotFound(onboardingID)
	}
	if err != nil {
		return reminders.Policy{}, err
	}
	return sqlutil.ParsePolicy(text)
}

func (s reminderStore) SetPolicy(ctx context.Context, organizationID, onboardingID string, p reminders.Policy) (err error) {
	defer sqlutil.Wrap(&err, "onboarding reminders: set policy")
	text, err := sqlutil.PolicyJSON(p)
	if err != nil {
		return err
	}
	tag, err := s.db.conn(ctx).Exec(ctx, `UPDATE onboardings SET reminder_policy_json = $1 WHERE organization_id = $2 AND onboarding_id = $3`,
		text, organizationID, onboardingID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return onboardingNotFound(onboardingID)
	}
	return nil
}

func (s reminderStore) Insert(ctx context.Context, r reminders.Reminder) (_ bool, err error) {
	defer sqlutil.Wrap(&err, "onboarding reminders: insert")
	vals, err := sqlutil.ReminderValues(r, sqlutil.PostgresInstants)
	if err != nil {
		return false, err
	}
	tag, err := s.db.conn(ctx).Exec(ctx, `INSERT INTO onboarding_reminders (`+sqlutil.ReminderList+`) VALUES (`+
		sqlutil.Placeholders(len(sqlutil.ReminderColumns), 1, dollar)+`) ON CONFLICT DO NOTHING`, vals...)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

func (s reminderStore) List(ctx context.Context, v auth.Visibility, onboardingID, gateID string) (_ []reminders.Reminder, err error) {
	defer sqlutil.Wrap(&err, "onboarding reminders: list")
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT `+sqlutil.ReminderList+` FROM onboarding_reminders
		WHERE ($1 OR organization_id = $2) AND onboarding_id = $3 AND ($4 = '' OR gate_id = $4)
		ORDER BY enqueued_at DESC, reminder_id DESC`, v.All, v.OrganizationID, onboardingID, gateID)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (reminders.Reminder, error) {
		dest, get := sqlutil.ReminderScan(sqlutil.PostgresInstants)
		if err := row.Scan(dest...); err != nil {
			return reminders.Reminder{}, err
		}
		return get()
	})
	if out == nil {
		out = []reminders.Reminder{}
	}
	return out, err
}
