package postgres

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
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT gate_id, fields_json, fields_updated_at, fields_updated_by
		FROM onboarding_gates WHERE organization_id = $1 AND onboarding_id = $2`, organizationID, onboardingID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]fields.Values{}
	for rows.Next() {
		var id, text string
		var v fields.Values
		at, get := sqlutil.PostgresInstants.Scan()
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
	tag, err := s.db.conn(ctx).Exec(ctx, `UPDATE onboarding_gates SET fields_json = $1, fields_updated_at = $2, fields_updated_by = $3
		WHERE organization_id = $4 AND onboarding_id = $5 AND gate_id = $6`,
		string(text), sqlutil.PostgresInstants.Encode(v.UpdatedAt), v.UpdatedBy, organizationID, onboardingID, gateID)
	if err == nil && tag.RowsAffected() == 0 {
		return errs.E(errs.NotFound, onboarding.CodeGateNotFound, "no gate %q", gateID)
	}
	return err
}
