package rfi

import (
	"encoding/json"
	"fmt"
	"strings"

	"atcp/internal/assets"
)

// AssetMembers are the asset members (docs/assets.md) an RfI field may
// write: AssetPatch knows how to set each.
var AssetMembers = []string{
	"asset_type", "usable_power_capacity_mw", "usable_energy_capacity_mwh", "grid_connection_power_mw",
	"charge_efficiency", "discharge_efficiency", "max_pos_ramp_rate_mw_per_sec", "min_neg_ramp_rate_mw_per_sec",
	"tso", "country", "location", "latitude,longitude",
}

// AssetPatch builds the partial asset update a passed (or waived) RfI gate
// writes: every field of defs with an asset_field and a non-null value in
// values, which were validated when saved. Absent and null values leave
// the asset's member as it is. The caller applies the update with the
// asset registry's rules (assets.Update.Apply), whose refusal is the
// gate's 409 asset_update_refused. An error means a definition names a
// member outside AssetMembers or a stored value that no longer decodes.
func AssetPatch(defs []Field, values map[string]json.RawMessage) (assets.Update, error) {
	var u assets.Update
	for _, f := range defs {
		raw, ok := values[f.Key]
		if f.AssetField == "" || !ok || isNull(raw) {
			continue
		}
		if err := f.patch(&u, raw); err != nil {
			return assets.Update{}, fmt.Errorf("rfi: field %s -> asset %s: %w", f.Key, f.AssetField, err)
		}
	}
	return u, nil
}

func (f Field) patch(u *assets.Update, raw json.RawMessage) error {
	if f.AssetField == "latitude,longitude" {
		var c struct{ Latitude, Longitude float64 }
		if err := json.Unmarshal(raw, &c); err != nil {
			return err
		}
		u.Latitude, u.Longitude = assets.Set(c.Latitude), assets.Set(c.Longitude)
		return nil
	}
	var num *float64
	switch f.AssetField {
	case "usable_power_capacity_mw":
		num = &u.UsablePowerCapacityMW.Value
		u.UsablePowerCapacityMW.Present = true
	case "usable_energy_capacity_mwh":
		num = &u.UsableEnergyCapacityMWh.Value
		u.UsableEnergyCapacityMWh.Present = true
	case "grid_connection_power_mw":
		num = &u.GridConnectionPowerMW.Value
		u.GridConnectionPowerMW.Present = true
	case "charge_efficiency":
		num = &u.ChargeEfficiency.Value
		u.ChargeEfficiency.Present = true
	case "discharge_efficiency":
		num = &u.DischargeEfficiency.Value
		u.DischargeEfficiency.Present = true
	case "max_pos_ramp_rate_mw_per_sec":
		num = &u.MaxPosRampRateMWPerSec.Value
		u.MaxPosRampRateMWPerSec.Present = true
	case "min_neg_ramp_rate_mw_per_sec":
		num = &u.MinNegRampRateMWPerSec.Value
		u.MinNegRampRateMWPerSec.Present = true
	}
	if num != nil {
		return json.Unmarshal(raw, num)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	if o, ok := f.option(s); ok && o.AssetValue != "" {
		s = o.AssetValue
	}
	switch f.AssetField {
	case "asset_type":
		u.AssetType = assets.Some(assets.AssetType(s))
	case "tso":
		u.TSO = assets.Set(assets.TSO(s))
	case "country":
		u.Country = assets.Set(strings.ToUpper(s))
	case "location":
		u.Location = assets.Some(s)
	default:
		return fmt.Errorf("not an asset member an RfI field can write (one of %s)", strings.Join(AssetMembers, "; "))
	}
	return nil
}
