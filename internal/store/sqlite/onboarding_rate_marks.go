package sqlite

import (
	"context"
	"database/sql"
	"time"

	"atcp/internal/onboarding"
	"atcp/internal/store/sqlutil"
)

// The rate marks of onboarding_rate_marks. The workflow's write
// transaction (Mutate) orders a check and its mark against every other
// change of the workflow: the single write connection serialises them.

func (s onboardingStore) RateMarks(ctx context.Context, organizationID, onboardingID, kind, subject string, since time.Time) (_ []time.Time, err error) {
	defer sqlutil.Wrap(&err, "onboardings: rate marks")
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT at FROM onboarding_rate_marks
		WHERE organization_id = ? AND onboarding_id = ? AND kind = ? AND subject = ? AND at > ?`,
		organizationID, onboardingID, kind, subject, sqlutil.Micros(since))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var at int64
		if err := rows.Scan(&at); err != nil {
			return nil, err
		}
		out = append(out, sqlutil.FromMicros(at))
	}
	return out, rows.Err()
}

func (s onboardingStore) AddRateMark(ctx context.Context, m onboarding.RateMark, prune time.Time) (err error) {
	defer sqlutil.Wrap(&err, "onboardings: add rate mark")
	return s.db.join(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM onboarding_rate_marks WHERE organization_id = ? AND onboarding_id = ? AND at <= ?`,
			m.OrganizationID, m.OnboardingID, sqlutil.Micros(prune)); err != nil {
			return sqlutil.Wrapped("prune rate marks", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO onboarding_rate_marks (organization_id, onboarding_id, kind, subject, at) VALUES (?, ?, ?, ?, ?)`,
			m.OrganizationID, m.OnboardingID, m.Kind, m.Subject, sqlutil.Micros(m.At)); err != nil {
			return sqlutil.Wrapped("insert rate mark", err)
		}
		return nil
	})
}
