package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/onboarding"
	"atcp/internal/store/sqlutil"
)

// The rate marks of onboarding_rate_marks. The workflow's row lock (FOR
// UPDATE in Mutate) orders a check and its mark against every other
// change of the workflow, on every instance: a second transaction reads
// the marks only once the first has committed its own.

func (s onboardingStore) RateMarks(ctx context.Context, organizationID, onboardingID, kind, subject string, since time.Time) (_ []time.Time, err error) {
	defer sqlutil.Wrap(&err, "onboardings: rate marks")
	if !onboarding.ValidID(onboardingID) {
		return nil, nil
	}
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT at FROM onboarding_rate_marks
		WHERE organization_id = $1 AND onboarding_id = $2 AND kind = $3 AND subject = $4 AND at > $5`,
		organizationID, onboardingID, kind, subject, since)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
	for i := range out {
		out[i] = out[i].UTC()
	}
	return out, err
}

func (s onboardingStore) AddRateMark(ctx context.Context, m onboarding.RateMark, prune time.Time) (err error) {
	defer sqlutil.Wrap(&err, "onboardings: add rate mark")
	return s.db.join(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM onboarding_rate_marks WHERE organization_id = $1 AND onboarding_id = $2 AND at <= $3`,
			m.OrganizationID, m.OnboardingID, prune); err != nil {
			return sqlutil.Wrapped("prune rate marks", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO onboarding_rate_marks (organization_id, onboarding_id, kind, subject, at) VALUES ($1, $2, $3, $4, $5)`,
			m.OrganizationID, m.OnboardingID, m.Kind, m.Subject, m.At); err != nil {
			return sqlutil.Wrapped("insert rate mark", err)
		}
		return nil
	})
}
