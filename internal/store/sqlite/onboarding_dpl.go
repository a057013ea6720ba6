package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"atcp/internal/onboarding/dpl"
	"atcp/internal/onboarding/dplsvc"
	"atcp/internal/store/sqlutil"
)

// OnboardingDPL returns the store of DPL rows and communication tests.
func (db *DB) OnboardingDPL() dplsvc.Store { return dplStore{db} }

type dplStore struct{ db *DB }

func (s dplStore) Rows(ctx context.Context, organizationID, onboardingID string) (_ []dplsvc.Row, err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: rows")
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT `+sqlutil.DPLRowList+` FROM onboarding_dpl_rows
		WHERE organization_id = ? AND onboarding_id = ?`, organizationID, onboardingID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []dplsvc.Row{}
	for rows.Next() {
		var r dplsvc.Row
		var at int64
		if err := rows.Scan(append(sqlutil.DPLRowScan(&r), &at)...); err != nil {
			return nil, err
		}
		r.UpdatedAt = sqlutil.FromMicros(at)
		out = append(out, r)
	}
	return out, rows.Err()
}

func (s dplStore) InsertRow(ctx context.Context, organizationID string, r dplsvc.Row) (err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: insert row")
	_, err = s.db.write(ctx).ExecContext(ctx, `INSERT INTO onboarding_dpl_rows (organization_id, `+sqlutil.DPLRowList+`) VALUES (?, `+
		sqlutil.Placeholders(len(sqlutil.DPLRowColumns), 2, question)+`)`,
		append(append([]any{organizationID}, sqlutil.DPLRowValues(r)...), sqlutil.Micros(r.UpdatedAt))...)
	if isUniqueViolation(err) {
		return sqlutil.DPLUniqueViolation(err, r)
	}
	return err
}

func (s dplStore) UpdateRow(ctx context.Context, organizationID string, r dplsvc.Row) (err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: update row")
	sets := make([]string, 0, len(sqlutil.DPLRowColumns))
	for _, c := range sqlutil.DPLRowColumns[2:] {
		sets = append(sets, fmt.Sprintf("%s = ?", c))
	}
	vals := append(sqlutil.DPLRowValues(r), sqlutil.Micros(r.UpdatedAt))
	res, err := s.db.write(ctx).ExecContext(ctx, `UPDATE onboarding_dpl_rows SET `+strings.Join(sets, ", ")+
		` WHERE organization_id = ? AND onboarding_id = ? AND row_id = ?`, append(vals[2:], organizationID, vals[0], vals[1])...)
	if isUniqueViolation(err) {
		return sqlutil.DPLUniqueViolation(err, r)
	}
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err == nil {
			err = sqlutil.DPLRowNotFound(r.ID)
		}
		return err
	}
	return nil
}

func (s dplStore) DeleteRow(ctx context.Context, organizationID, onboardingID, rowID string) (err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: delete row")
	res, err := s.db.write(ctx).ExecContext(ctx, `DELETE FROM onboarding_dpl_rows WHERE organization_id = ? AND onboarding_id = ? AND row_id = ?`,
		organizationID, onboardingID, rowID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err == nil {
			err = sqlutil.DPLRowNotFound(rowID)
		}
		return err
	}
	return nil
}

func (s dplStore) SetTestResults(ctx context.Context, organizationID, onboardingID string, results map[string]dpl.Result) (err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: set test results")
	return s.db.join(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for id, r := range results {
			if _, err := tx.ExecContext(ctx, `UPDATE onboarding_dpl_rows SET last_test_result = ?
				WHERE organization_id = ? AND onboarding_id = ? AND row_id = ?`, string(r), organizationID, onboardingID, id); err != nil {
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
	_, err = s.db.write(ctx).ExecContext(ctx, `INSERT INTO onboarding_comm_tests (organization_id, `+testColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, organizationID, t.OnboardingID, t.ID, string(t.Status), sqlutil.Micros(t.StartedAt), t.StartedBy,
		sqlutil.NullMicros(t.FinishedAt), t.Connected, sqlutil.NullMicros(t.MeasuredAt), points)
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
	_, err = s.db.write(ctx).ExecContext(ctx, `UPDATE onboarding_comm_tests SET status = ?, finished_at = ?, connected = ?, measured_at = ?,
		points_json = ? WHERE organization_id = ? AND onboarding_id = ? AND test_id = ?`, string(t.Status), sqlutil.NullMicros(t.FinishedAt),
		t.Connected, sqlutil.NullMicros(t.MeasuredAt), points, organizationID, t.OnboardingID, t.ID)
	return err
}

func scanTest(row scanner) (dplsvc.Test, error) {
	var t dplsvc.Test
	var started int64
	var finished, measured *int64
	var points string
	if err := row.Scan(&t.OnboardingID, &t.ID, &t.Status, &started, &t.StartedBy, &finished, &t.Connected, &measured, &points); err != nil {
		return t, err
	}
	t.StartedAt, t.FinishedAt, t.MeasuredAt = sqlutil.FromMicros(started), sqlutil.FromNullMicros(finished), sqlutil.FromNullMicros(measured)
	var err error
	t.Points, err = sqlutil.DPLPoints(points)
	return t, err
}

func (s dplStore) Tests(ctx context.Context, organizationID, onboardingID string, limit, offset int) (_ []dplsvc.Test, _ int, err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: tests")
	var total int
	if err := s.db.read(ctx).QueryRowContext(ctx, `SELECT count(*) FROM onboarding_comm_tests WHERE organization_id = ? AND onboarding_id = ?`,
		organizationID, onboardingID).Scan(&total); err != nil {
		return nil, 0, sqlutil.Wrapped("count", err)
	}
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT `+testColumns+` FROM onboarding_comm_tests WHERE organization_id = ? AND onboarding_id = ?
		ORDER BY started_at DESC, test_id DESC LIMIT ? OFFSET ?`, organizationID, onboardingID, limit, offset)
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
	t, err := scanTest(s.db.read(ctx).QueryRowContext(ctx, `SELECT `+testColumns+` FROM onboarding_comm_tests WHERE organization_id = ? AND onboarding_id = ?
		ORDER BY started_at DESC, test_id DESC LIMIT 1`, organizationID, onboardingID))
	if errors.Is(err, sql.ErrNoRows) {
		return dplsvc.Test{}, false, nil
	}
	return t, err == nil, err
}

func (s dplStore) Test(ctx context.Context, organizationID, onboardingID, testID string) (_ dplsvc.Test, err error) {
	defer sqlutil.Wrap(&err, "onboarding dpl: test")
	t, err := scanTest(s.db.read(ctx).QueryRowContext(ctx, `SELECT `+testColumns+` FROM onboarding_comm_tests
		WHERE organization_id = ? AND onboarding_id = ? AND test_id = ?`, organizationID, onboardingID, testID))
	if errors.Is(err, sql.ErrNoRows) {
		return dplsvc.Test{}, sqlutil.DPLTestNotFound(testID)
	}
	return t, err
}
