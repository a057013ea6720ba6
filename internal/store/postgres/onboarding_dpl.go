package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/onboarding/dpl"
	"atcp/internal/onboarding/dplsvc"
	"atcp/internal/store/sqlutil"
)

// OnboardingDPL returns the store of DPL rows and communication tests.
func (db *DB) OnboardingDPL() dplsvc.Store { return dplStore{db} }

type dplStore struct{ db *DB }

func (s dplStore) Rows(ctx context.Context, organizationID, onboardingID string) (_ []dplsvc.Row, err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: rows")
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT `+sqlutil.DPLRowList+` FROM onboarding_dpl_rows
		WHERE organization_id = $1 AND onboarding_id = $2`, organizationID, onboardingID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []dplsvc.Row{}
	for rows.Next() {
		var r dplsvc.Row
		var at time.Time
		if err := rows.Scan(append(sqlutil.DPLRowScan(&r), &at)...); err != nil {
			return nil, err
		}
		r.UpdatedAt = at.UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}

func (s dplStore) InsertRow(ctx context.Context, organizationID string, r dplsvc.Row) (err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: insert row")
	_, err = s.db.conn(ctx).Exec(ctx, `INSERT INTO onboarding_dpl_rows (organization_id, `+sqlutil.DPLRowList+`) VALUES ($1, `+
		sqlutil.Placeholders(len(sqlutil.DPLRowColumns), 2, dollar)+`)`,
		append(append([]any{organizationID}, sqlutil.DPLRowValues(r)...), r.UpdatedAt)...)
	if isUniqueViolation(err) {
		return sqlutil.DPLUniqueViolation(err, r)
	}
	return err
}

func (s dplStore) UpdateRow(ctx context.Context, organizationID string, r dplsvc.Row) (err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: update row")
	sets := make([]string, 0, len(sqlutil.DPLRowColumns))
	for i, c := range sqlutil.DPLRowColumns[2:] {
		sets = append(sets, fmt.Sprintf("%s = $%d", c, i+4))
	}
	vals := append(sqlutil.DPLRowValues(r), r.UpdatedAt)
	tag, err := s.db.conn(ctx).Exec(ctx, `UPDATE onboarding_dpl_rows SET `+strings.Join(sets, ", ")+
		` WHERE organization_id = $1 AND onboarding_id = $2 AND row_id = $3`, append([]any{organizationID, vals[0], vals[1]}, vals[2:]...)...)
	if isUniqueViolation(err) {
		return sqlutil.DPLUniqueViolation(err, r)
	}
	if err == nil && tag.RowsAffected() == 0 {
		return sqlutil.DPLRowNotFound(r.ID)
	}
	return err
}

func (s dplStore) DeleteRow(ctx context.Context, organizationID, onboardingID, rowID string) (err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: delete row")
	tag, err := s.db.conn(ctx).Exec(ctx, `DELETE FROM onboarding_dpl_rows WHERE organization_id = $1 AND onboarding_id = $2 AND row_id = $3`,
		organizationID, onboardingID, rowID)
	if err == nil && tag.RowsAffected() == 0 {
		return sqlutil.DPLRowNotFound(rowID)
	}
	return err
}

func (s dplStore) SetTestResults(ctx context.Context, organizationID, onboardingID string, results map[string]dpl.Result) (err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: set test results")
	return s.db.join(ctx, func(ctx context.Context, tx pgx.Tx) error {
		for id, r := range results {
			if _, err := tx.Exec(ctx, `UPDATE onboarding_dpl_rows SET last_test_result = $1
				WHERE organization_id = $2 AND onboarding_id = $3 AND row_id = $4`, string(r), organizationID, onboardingID, id); err != nil {
				return sqlutil.Wrapped("update row", err)
			}
		}
		return nil
	})
}

const testColumns = `onboarding_id, test_id, status, started_at, started_by, finished_at, connected, measured_at, points_json`

func (s dplStore) InsertTest(ctx context.Context, organizationID string, t dplsvc.Test) (err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: insert test")
	points, err := sqlutil.DPLPointsJSON(t.Points)
	if err != nil {
		return err
	}
	_, err = s.db.conn(ctx).Exec(ctx, `INSERT INTO onboarding_comm_tests (organization_id, `+testColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, organizationID, t.OnboardingID, t.ID, string(t.Status), t.StartedAt, t.StartedBy,
		t.FinishedAt, t.Connected, t.MeasuredAt, points)
	if isUniqueViolation(err) {
		return sqlutil.DPLTestRunning()
	}
	return err
}

func (s dplStore) FinishTest(ctx context.Context, organizationID string, t dplsvc.Test) (err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: finish test")
	points, err := sqlutil.DPLPointsJSON(t.Points)
	if err != nil {
		return err
	}
	_, err = s.db.conn(ctx).Exec(ctx, `UPDATE onboarding_comm_tests SET status = $1, finished_at = $2, connected = $3, measured_at = $4,
		points_json = $5 WHERE organization_id = $6 AND onboarding_id = $7 AND test_id = $8`, string(t.Status), t.FinishedAt,
		t.Connected, t.MeasuredAt, points, organizationID, t.OnboardingID, t.ID)
	return err
}

func scanTest(row pgx.Row) (dplsvc.Test, error) {
	var t dplsvc.Test
	var points string
	if err := row.Scan(&t.OnboardingID, &t.ID, &t.Status, &t.StartedAt, &t.StartedBy, &t.FinishedAt, &t.Connected, &t.MeasuredAt, &points); err != nil {
		return t, err
	}
	t.StartedAt, t.FinishedAt, t.MeasuredAt = t.StartedAt.UTC(), sqlutil.UTCPtr(t.FinishedAt), sqlutil.UTCPtr(t.MeasuredAt)
	var err error
	t.Points, err = sqlutil.DPLPoints(points)
	return t, err
}

func (s dplStore) Tests(ctx context.Context, organizationID, onboardingID string, limit, offset int) (_ []dplsvc.Test, _ int, err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: tests")
	var total int
	if err := s.db.conn(ctx).QueryRow(ctx, `SELECT count(*) FROM onboarding_comm_tests WHERE organization_id = $1 AND onboarding_id = $2`,
		organizationID, onboardingID).Scan(&total); err != nil {
		return nil, 0, sqlutil.Wrapped("count", err)
	}
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT `+testColumns+` FROM onboarding_comm_tests WHERE organization_id = $1 AND onboarding_id = $2
		ORDER BY started_at DESC, test_id DESC LIMIT $3 OFFSET $4`, organizationID, onboardingID, limit, offset)
	if err != nil {
		return nil, 0, sqlutil.Wrapped("select", err)
	}
	defer rows.Close()
	out := []dplsvc.Test{}
	for rows.Next() {
		t, err := scanTest(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, t)
	}
	return out, total, rows.Err()
}

func (s dplStore) LatestTest(ctx context.Context, organizationID, onboardingID string) (_ dplsvc.Test, _ bool, err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: latest test")
	t, err := scanTest(s.db.conn(ctx).QueryRow(ctx, `SELECT `+testColumns+` FROM onboarding_comm_tests WHERE organization_id = $1 AND onboarding_id = $2
		ORDER BY started_at DESC, test_id DESC LIMIT 1`, organizationID, onboardingID))
	if errors.Is(err, pgx.ErrNoRows) {
		return dplsvc.Test{}, false, nil
	}
	return t, err == nil, err
}

func (s dplStore) Test(ctx context.Context, organizationID, onboardingID, testID string) (_ dplsvc.Test, err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: test")
	t, err := scanTest(s.db.conn(ctx).QueryRow(ctx, `SELECT `+testColumns+` FROM onboarding_comm_tests
		WHERE organization_id = $1 AND onboarding_id = $2 AND test_id = $3`, organizationID, onboardingID, testID))
	if errors.Is(err, pgx.ErrNoRows) {
		return dplsvc.Test{}, sqlutil.DPLTestNotFound(testID)
	}
	return t, err
}
