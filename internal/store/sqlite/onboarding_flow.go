package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"atcp/internal/auth"
	"atcp/internal/errs"
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
	_, err = s.db.write(ctx).ExecContext(ctx, `INSERT INTO onboarding_comments (`+sqlutil.CommentList+`) VALUES (`+
		sqlutil.Placeholders(len(sqlutil.CommentColumns), 1, question)+`)`, sqlutil.CommentValues(c, sqlutil.SQLiteInstants)...)
	return err
}

func (s commentStore) List(ctx context.Context, v auth.Visibility, onboardingID string, f comments.Filter) (_ []comments.Comment, err error) {
	defer sqlutil.Wrap(&err, "onboarding comments: list")
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT `+sqlutil.CommentList+` FROM onboarding_comments
		WHERE (?1 OR organization_id = ?2) AND onboarding_id = ?3 AND (?4 = '' OR gate_id = ?4) AND (?5 = '' OR visibility = ?5)
		ORDER BY created_at DESC, comment_id DESC`, v.All, v.OrganizationID, onboardingID, f.GateID, string(f.Visibility))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []comments.Comment{}
	for rows.Next() {
		dest, get := sqlutil.CommentScan(sqlutil.SQLiteInstants)
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		out = append(out, get())
	}
	return out, rows.Err()
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
	_, err = s.db.write(ctx).ExecContext(ctx, `INSERT INTO onboarding_prequalifications (`+sqlutil.PrequalList+`) VALUES (`+
		sqlutil.Placeholders(len(sqlutil.PrequalColumns), 1, question)+`)`, sqlutil.PrequalValues(p, sqlutil.SQLiteInstants)...)
	if isUniqueViolation(err) {
		return errs.Conflictf(prequal.CodePrequalificationExists, "product %s already has a prequalification that is not withdrawn", p.Product)
	}
	return err
}

func (s prequalStore) scan(row scanner) (prequal.Prequalification, error) {
	dest, get := sqlutil.PrequalScan(sqlutil.SQLiteInstants)
	if err := row.Scan(dest...); err != nil {
		return prequal.Prequalification{}, err
	}
	return get()
}

func (s prequalStore) Get(ctx context.Context, v auth.Visibility, onboardingID, id string) (_ prequal.Prequalification, err error) {
	defer sqlutil.Wrap(&err, "onboarding prequalifications: get")
	p, err := s.scan(s.db.read(ctx).QueryRowContext(ctx, `SELECT `+sqlutil.PrequalList+` FROM onboarding_prequalifications
		WHERE (? OR organization_id = ?) AND onboarding_id = ? AND prequalification_id = ?`, v.All, v.OrganizationID, onboardingID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return p, prequalNotFound(id)
	}
	return p, err
}

func (s prequalStore) List(ctx context.Context, v auth.Visibility, onboardingID string) (_ []prequal.Prequalification, err error) {
	defer sqlutil.Wrap(&err, "onboarding prequalifications: list")
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT `+sqlutil.PrequalList+` FROM onboarding_prequalifications
		WHERE (? OR organization_id = ?) AND onboarding_id = ? ORDER BY created_at, prequalification_id`, v.All, v.OrganizationID, onboardingID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []prequal.Prequalification{}
	for rows.Next() {
		p, err := s.scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func (s prequalStore) Update(ctx context.Context, p prequal.Prequalification) (err error) {
	defer sqlutil.Wrap(&err, "onboarding prequalifications: update")
	vals := sqlutil.PrequalValues(p, sqlutil.SQLiteInstants)
	res, err := s.db.write(ctx).ExecContext(ctx, `UPDATE onboarding_prequalifications SET status = ?, prequalified_mw = ?, valid_from = ?,
		decided_on = ?, decision_note = ?, certificate_document_id = ?, withdraw_reason = ?, recorded_by = ?, updated_at = ?
		WHERE organization_id = ? AND onboarding_id = ? AND prequalification_id = ?`,
		vals[8], vals[9], vals[10], vals[11], vals[12], vals[13], vals[14], vals[15], vals[17], vals[0], vals[1], vals[2])
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err == nil {
			err = prequalNotFound(p.ID)
		}
		return err
	}
	return nil
}

// OnboardingReminders returns the reminder store; the partial unique
// index onboarding_reminders_due records an automatic reminder once.
func (db *DB) OnboardingReminders() reminders.Store { return reminderStore{db} }

type reminderStore struct{ db *DB }

func (s reminderStore) Policy(ctx context.Context, v auth.Visibility, onboardingID string) (_ reminders.Policy, err error) {
	defer sqlutil.Wrap(&err, "onboarding reminders: policy")
	var text string
	err = s.db.read(ctx).QueryRowContext(ctx, `SELECT reminder_policy_json FROM onboardings WHERE (? OR organization_id = ?) AND onboarding_id = ?`,
		v.All, v.OrganizationID, onboardingID).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
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
	res, err := s.db.write(ctx).ExecContext(ctx, `UPDATE onboardings SET reminder_policy_json = ? WHERE organization_id = ? AND onboarding_id = ?`,
		text, organizationID, onboardingID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err == nil {
			err = onboardingNotFound(onboardingID)
		}
		return err
	}
	return nil
}

func (s reminderStore) Insert(ctx context.Context, r reminders.Reminder) (_ bool, err error) {
	defer sqlutil.Wrap(&err, "onboarding reminders: insert")
	vals, err := sqlutil.ReminderValues(r, sqlutil.SQLiteInstants)
	if err != nil {
		return false, err
	}
	res, err := s.db.write(ctx).ExecContext(ctx, `INSERT INTO onboarding_reminders (`+sqlutil.ReminderList+`) VALUES (`+
		sqlutil.Placeholders(len(sqlutil.ReminderColumns), 1, question)+`) ON CONFLICT DO NOTHING`, vals...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (s reminderStore) List(ctx context.Context, v auth.Visibility, onboardingID, gateID string) (_ []reminders.Reminder, err error) {
	defer sqlutil.Wrap(&err, "onboarding reminders: list")
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT `+sqlutil.ReminderList+` FROM onboarding_reminders
		WHERE (?1 OR organization_id = ?2) AND onboarding_id = ?3 AND (?4 = '' OR gate_id = ?4)
		ORDER BY enqueued_at DESC, reminder_id DESC`, v.All, v.OrganizationID, onboardingID, gateID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []reminders.Reminder{}
	for rows.Next() {
		dest, get := sqlutil.ReminderScan(sqlutil.SQLiteInstants)
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		r, err := get()
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
