package sqlite

import (
	"context"
	"encoding/json"

	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/fields"
	"atcp/internal/store/sqlutil"
)

// OnboardingFields returns the store of the gates' RfI values.
func (db *DB) OnboardingFields() fields.Store { return fieldStore{db} }

type fieldStore struct{ db *DB }

func (s fieldStore) Fields(ctx context.Context, organizationID, onboardingID string) (_ map[string]fields.Values, err error) {
	defer sqlutil.Wrap(&err, "onboarding fields: read")
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT gate_id, fields_json, fields_updated_at, fields_updated_by
		FROM onboarding_gates WHERE organization_id = ? AND onboarding_id = ?`, organizationID, onboardingID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]fields.Values{}
	for rows.Next() {
		var id, text string
		var v fields.Values
		at, get := sqlutil.SQLiteInstants.Scan()
		if err := rows.Scan(&id, &text, at, &v.UpdatedBy); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(text), &v.Fields); err != nil {
			return nil, err
		}
		v.UpdatedAt = get()
		out[id] = v
	}
	return out, rows.Err()
}

func (s fieldStore) SetFields(ctx context.Context, organizationID, onboardingID, gateID string, v fields.Values) (err error) {
	defer sqlutil.Wrap(&err, "onboarding fields: save")
	if v.Fields == nil {
		v.Fields = map[string]json.RawMessage{}
	}
	text, err := json.Marshal(v.Fields)
	if err != nil {
		return err
	}
	res, err := s.db.write(ctx).ExecContext(ctx, `UPDATE onboarding_gates SET fields_json = ?, fields_updated_at = ?, fields_updated_by = ?
		WHERE organization_id = ? AND onboarding_id = ? AND gate_id = ?`,
		string(text), sqlutil.SQLiteInstants.Encode(v.UpdatedAt), v.UpdatedBy, organizationID, onboardingID, gateID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err == nil {
			err = errs.E(errs.NotFound, onboarding.CodeGateNotFound, "no gate %q", gateID)
		}
		return err
	}
	return nil
}
