package fields

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/rfi"
)

// Assets is the asset registry as a passed RfI gate writes to it
// (*assets.Service): Update joins the transaction ctx carries.
type Assets interface {
	Get(ctx context.Context, v auth.Visibility, id string) (assets.Asset, error)
	Update(ctx context.Context, v auth.Visibility, id string, u assets.Update) (assets.Asset, error)
}

// Service reads and saves the RfI values of gates.
type Service struct {
	ob     *onboarding.Service
	store  Store
	assets Assets
	clk    clock.Clock
}

// NewService returns the RfI values' service and registers with ob the
// "fields" requirement of submit and the on-pass hook writing the values
// with an asset_field to the asset.
func NewService(ob *onboarding.Service, store Store, registry Assets, clk clock.Clock) *Service {
	s := &Service{ob: ob, store: store, assets: registry, clk: clk}
	ob.AddRequirement(onboarding.RequireFields, s.missing)
	ob.AddOnPass(s.applyToAsset)
	return s
}

// View is a gate's field definitions and its values.
type View struct {
	Gate        onboarding.Gate
	Definitions []rfi.Field // nil for a gate without fields
	Values      Values
}

// ManagerRole is the role a manager's save is validated as: platform users
// and the asset organisation's writers may set every field of a gate
// (every field is editable by platform_onboarding), as they answer for the
// whole workflow; editable_by narrows what each task role sets.
const ManagerRole = rfi.PlatformOnboarding

// Get returns a gate's fields on a workflow the actor sees (manager side).
func (s *Service) Get(ctx context.Context, actor onboarding.Actor, onboardingID, gateID string) (View, error) {
	ob, g, err := s.ob.GetGate(ctx, actor, onboardingID, gateID)
	if err != nil {
		return View{}, err
	}
	return s.view(ctx, ob, g)
}

// GetTask returns the fields of a gate the task's role owns or contributes
// to; another gate is 404 gate_not_found.
func (s *Service) GetTask(ctx context.Context, task onboarding.Task, gateID string) (View, error) {
	g, err := taskGate(task, task.Onboarding, gateID)
	if err != nil {
		return View{}, err
	}
	return s.view(ctx, task.Onboarding, g)
}

// Of returns the values of every gate of ob, by gate id (the task detail's
// structured_data).
func (s *Service) Of(ctx context.Context, ob onboarding.Onboarding) (map[string]Values, error) {
	return s.store.Fields(ctx, ob.OrganizationID, ob.ID)
}

func (s *Service) view(ctx context.Context, ob onboarding.Onboarding, g onboarding.Gate) (View, error) {
	all, err := s.store.Fields(ctx, ob.OrganizationID, ob.ID)
	if err != nil {
		return View{}, err
	}
	return View{Gate: g, Definitions: rfi.GateFields(g.DefinitionID), Values: withFields(all[g.ID])}, nil
}

func withFields(v Values) Values {
	if v.Fields == nil {
		v.Fields = map[string]json.RawMessage{}
	}
	return v
}

func taskGate(task onboarding.Task, ob onboarding.Onboarding, gateID string) (onboarding.Gate, error) {
	g, ok := ob.Gate(gateID)
	if ok {
		if def, known := g.Definition(); known && task.Works(def) {
			return g, nil
		}
	}
	return onboarding.Gate{}, errs.E(errs.NotFound, onboarding.CodeGateNotFound, "gate %q is not among the gates of role %s", gateID, task.Role)
}

// Save sets the given fields of a gate as a manager (ManagerRole); see
// save.
func (s *Service) Save(ctx context.Context, actor onboarding.Actor, onboardingID, gateID string, values map[string]json.RawMessage, ifMatch string) (View, error) {
	return s.save(ctx, actor, onboardingID, gateID, ManagerRole, nil, values, ifMatch)
}

// SaveTask sets the given fields of a gate the task's role owns or
// contributes to, as that role (only its editable_by fields).
func (s *Service) SaveTask(ctx context.Context, task onboarding.Task, gateID string, values map[string]json.RawMessage, ifMatch string) (View, error) {
	check := func(ob onboarding.Onboarding) error {
		_, err := taskGate(task, ob, gateID)
		return err
	}
	return s.save(ctx, task.Actor, task.Onboarding.ID, gateID, string(task.Role), check, values, ifMatch)
}

// save validates values (every key a field of the gate, editable by role,
// of its type and constraints; null clears) and stores all or nothing in
// the workflow's transaction: 409 gate_locked while the gate is
// submitted, passed or waived, 409 edit_conflict when ifMatch ("" for
// none) is not the current ETag. A save changing a value records
// field.updated with the old and new values and moves a pending gate to
// in_progress; one changing nothing writes nothing.
func (s *Service) save(ctx context.Context, actor onboarding.Actor, onboardingID, gateID, role string,
	check func(onboarding.Onboarding) error, values map[string]json.RawMessage, ifMatch string) (View, error) {
	var out View
	err := s.ob.Mutate(ctx, actor, onboardingID, func(ctx context.Context, ob onboarding.Onboarding) error {
		if check != nil {
			if err := check(ob); err != nil {
				return err
			}
		}
		g, ok := ob.Gate(gateID)
		if !ok {
			return errs.E(errs.NotFound, onboarding.CodeGateNotFound, "onboarding %s has no gate %q", ob.ID, gateID)
		}
		def, ok := g.Definition()
		if !ok {
			return fmt.Errorf("gate %s has unknown definition %q", g.ID, g.DefinitionID)
		}
		if err := onboarding.GateLocked(g); err != nil {
			return err
		}
		all, err := s.store.Fields(ctx, ob.OrganizationID, ob.ID)
		if err != nil {
			return err
		}
		cur := withFields(all[g.ID])
		if ifMatch != "" && !matches(ifMatch, cur.ETag()) {
			return errs.Conflictf(onboarding.CodeEditConflict, "the fields changed since version %s; read them again", ifMatch)
		}
		defs := rfi.GateFields(def.DefinitionID)
		if err := rfi.Err(rfi.Validate(defs, values, role)); err != nil {
			return err
		}
		next := maps.Clone(cur.Fields)
		changes := map[string][2]any{}
		for k, raw := range values {
			var nv json.RawMessage
			if !isNull(raw) {
				var b bytes.Buffer
				if err := json.Compact(&b, raw); err != nil {
					return err
				}
				nv = b.Bytes()
			}
			old, had := cur.Fields[k]
			if (!had && nv == nil) || (had && bytes.Equal(old, nv)) {
				continue
			}
			changes["fields."+k] = [2]any{decoded(old), decoded(nv)}
			if nv == nil {
				delete(next, k)
			} else {
				next[k] = nv
			}
		}
		out = View{Gate: g, Definitions: defs, Values: cur}
		if len(changes) == 0 {
			return nil
		}
		now := s.clk.Now().UTC().Truncate(time.Microsecond)
		out.Values = Values{Fields: next, UpdatedAt: &now, UpdatedBy: actor.Name}
		if err := s.store.SetFields(ctx, ob.OrganizationID, ob.ID, g.ID, out.Values); err != nil {
			return err
		}
		if err := s.ob.Audit(ctx, actor, ob, "field.updated", onboarding.Target{Type: "gate", ID: g.ID}, changes); err != nil {
			return err
		}
		return s.ob.TouchGate(ctx, ob, def.Kind)
	})
	if err != nil {
		return View{}, err
	}
	// The gate's status may have moved (pending -> in_progress).
	_, g, err := s.ob.GetGate(ctx, actor, onboardingID, gateID)
	out.Gate = g
	return out, err
}

// matches compares an If-Match value with the current ETag; a weak form
// (W/"...") and a missing quote pair name the same version.
func matches(ifMatch, etag string) bool {
	for _, m := range strings.Split(ifMatch, ",") {
		m = strings.TrimPrefix(strings.TrimSpace(m), "W/")
		if m == "*" || strings.Trim(m, `"`) == strings.Trim(etag, `"`) {
			return true
		}
	}
	return false
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// decoded is a stored value for the audit trail (nil when absent).
func decoded(raw json.RawMessage) any {
	if raw == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	return v
}

// missing is the "fields" requirement: every required field of the gate
// holds a value (fields.<key>).
func (s *Service) missing(ctx context.Context, ob onboarding.Onboarding, g onboarding.Gate, def onboarding.GateDefinition) ([]onboarding.Unmet, error) {
	defs := rfi.GateFields(def.DefinitionID)
	if len(defs) == 0 {
		return nil, nil
	}
	all, err := s.store.Fields(ctx, ob.OrganizationID, ob.ID)
	if err != nil {
		return nil, err
	}
	var out []onboarding.Unmet
	for _, k := range rfi.Missing(defs, all[g.ID].Fields) {
		out = append(out, onboarding.Unmet{Location: "fields." + k, Detail: "is required"})
	}
	return out, nil
}

// applyToAsset writes the values with an asset_field to the asset when a
// gate with apply_fields_to_asset passes or is waived, inside that
// transaction: the asset validation's refusal is 409
// asset_update_refused with its errors, and nothing changes. The change
// is audited as asset.updated with each member's old and new value.
func (s *Service) applyToAsset(ctx context.Context, ob onboarding.Onboarding, g onboarding.Gate, def onboarding.GateDefinition, actor onboarding.Actor) error {
	defs := rfi.GateFields(def.DefinitionID)
	if !def.OnPass.ApplyFieldsToAsset || len(defs) == 0 {
		return nil
	}
	all, err := s.store.Fields(ctx, ob.OrganizationID, ob.ID)
	if err != nil {
		return err
	}
	values := all[g.ID].Fields
	var members []string
	for _, f := range defs {
		if raw, ok := values[f.Key]; ok && f.AssetField != "" && !isNull(raw) {
			members = append(members, strings.Split(f.AssetField, ",")...)
		}
	}
	if len(members) == 0 {
		return nil
	}
	u, err := rfi.AssetPatch(defs, values)
	if err != nil {
		return err
	}
	all2 := auth.Visibility{All: true}
	before, err := s.assets.Get(ctx, all2, ob.AssetID)
	if err != nil {
		return err
	}
	onboarding.TouchedAsset(ctx, ob.AssetID)
	after, err := s.assets.Update(ctx, all2, ob.AssetID, u)
	if errs.Is(err, errs.Invalid) || errs.Is(err, errs.Conflict) {
		var e *errs.Error
		errors.As(err, &e)
		out := errs.Conflictf(onboarding.CodeAssetUpdateRefused, "the asset refused the fields of gate %s: %s", def.DefinitionID, e.Message)
		out.Fields = e.Fields
		return out
	}
	if err != nil {
		return err
	}
	changes := map[string][2]any{}
	for _, m := range members {
		if o, n := member(before, m), member(after, m); fmt.Sprint(o) != fmt.Sprint(n) {
			changes[m] = [2]any{o, n}
		}
	}
	if len(changes) == 0 {
		return nil
	}
	return s.ob.Audit(ctx, actor, ob, "asset.updated", onboarding.Target{Type: "asset", ID: ob.AssetID}, changes)
}

// member is the value of an asset member rfi.AssetMembers names, nil when
// unset.
func member(a assets.Asset, name string) any {
	deref := func(p *float64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	switch name {
	case "asset_type":
		return string(a.Type)
	case "usable_power_capacity_mw":
		return deref(a.UsablePowerCapacityMW)
	case "usable_energy_capacity_mwh":
		return deref(a.UsableEnergyCapacityMWh)
	case "grid_connection_power_mw":
		return deref(a.GridConnectionPowerMW)
	case "charge_efficiency":
		return deref(a.ChargeEfficiency)
	case "discharge_efficiency":
		return deref(a.DischargeEfficiency)
	case "max_pos_ramp_rate_mw_per_sec":
		return deref(a.MaxPosRampRateMWPerSec)
	case "min_neg_ramp_rate_mw_per_sec":
		return deref(a.MinNegRampRateMWPerSec)
	case "latitude":
		return deref(a.Latitude)
	case "longitude":
		return deref(a.Longitude)
	case "location":
		return a.Location
	case "tso":
		if a.TSO == nil {
			return nil
		}
		return string(*a.TSO)
	case "country":
		if a.Country == nil {
			return nil
		}
		return *a.Country
	}
	return nil
}
