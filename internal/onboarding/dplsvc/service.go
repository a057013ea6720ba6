package dplsvc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/dpl"
	"atcp/internal/telemetry"
)

// Assets reads the onboarding's asset (*assets.Service).
type Assets interface {
	Get(ctx context.Context, v auth.Visibility, id string) (assets.Asset, error)
}

// Latest returns an asset's latest recorded measurements, errs.NotFound
// when it never reported (telemetry.Store): the path the asset state
// endpoint reads, which every instance sees, while the adapter itself is
// attached only on the instance running the control loop.
type Latest interface {
	Latest(ctx context.Context, assetID string) (telemetry.Snapshot, error)
}

// Deps are the service's collaborators.
type Deps struct {
	Onboarding *onboarding.Service
	Store      Store
	Assets     Assets
	Latest     Latest
	// Adapters are the adapters this server steers assets through
	// (simulator always, mqtt when configured): an asset routed to
	// another is not attached.
	Adapters []assets.AdapterName
	Clock    clock.Clock // platform: the records' instants, the measurements' age
	// Security is the security clock (docs/authentication.md) of the tests'
	// limit and of the running test's age: its read times out in real time.
	Security clock.Clock
}

// Service runs DPL rows and communication tests.
type Service struct{ d Deps }

// New returns the service and registers the gate requirements "dpl" and
// "communication_test" with the onboarding service.
func New(d Deps) *Service {
	if d.Clock == nil || d.Security == nil {
		panic("dplsvc: New needs Clock and Security")
	}
	s := &Service{d: d}
	d.Onboarding.AddRequirement(onboarding.RequireDPL, s.dplRequirement)
	d.Onboarding.AddRequirement(onboarding.RequireCommunicationTest, s.testRequirement)
	return s
}

func (s *Service) now() time.Time { return s.d.Clock.Now().UTC().Truncate(time.Microsecond) }

// Points returns the template points of an onboarding.
func Points(ob onboarding.Onboarding) []dpl.Point { return dpl.TemplatePoints(ob.TemplateID) }

// ETag is the version of a row If-Match names: it changes with every
// stored change of the row.
func ETag(r Row) string {
	b, _ := json.Marshal([]any{r.Row, r.LastTestResult, r.UpdatedAt.UnixMicro(), r.UpdatedBy})
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}

// List is a read of the rows.
type List struct {
	Rows    []Row    // in list order, filtered
	Missing []string // required template points without a row
	Points  []dpl.Point
}

// ListFilter narrows List; "" is any.
type ListFilter struct {
	Direction dpl.Direction
	Protocol  string
	// MissingOnly answers no rows, only the missing points.
	MissingOnly bool
}

// Rows returns the onboarding's rows in list order (template points in
// template order, then custom ones by name).
func (s *Service) Rows(ctx context.Context, ob onboarding.Onboarding) ([]Row, error) {
	rows, err := s.d.Store.Rows(ctx, ob.OrganizationID, ob.ID)
	if err != nil {
		return nil, err
	}
	order(rows, Points(ob))
	return rows, nil
}

func order(rows []Row, points []dpl.Point) {
	plain := make([]dpl.Row, len(rows))
	for i, r := range rows {
		plain[i] = r.Row
	}
	dpl.Order(plain, points)
	byID := map[string]Row{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	for i, p := range plain {
		rows[i] = byID[p.ID]
	}
}

// List returns the onboarding's rows matching f and the missing points.
func (s *Service) List(ctx context.Context, ob onboarding.Onboarding, f ListFilter) (List, error) {
	rows, err := s.Rows(ctx, ob)
	if err != nil {
		return List{}, err
	}
	points := Points(ob)
	out := List{Rows: []Row{}, Points: points, Missing: dpl.MissingPoints(plain(rows), points)}
	if out.Missing == nil {
		out.Missing = []string{}
	}
	for _, r := range rows {
		if !f.MissingOnly && (f.Direction == "" || r.Direction == f.Direction) && (f.Protocol == "" || r.Protocol == f.Protocol) {
			out.Rows = append(out.Rows, r)
		}
	}
	return out, nil
}

func plain(rows []Row) []dpl.Row {
	out := make([]dpl.Row, len(rows))
	for i, r := range rows {
		out[i] = r.Row
	}
	return out
}

// Export is the CSV of the onboarding's rows (dpl.Export).
func (s *Service) Export(ctx context.Context, ob onboarding.Onboarding) ([]byte, error) {
	rows, err := s.Rows(ctx, ob)
	if err != nil {
		return nil, err
	}
	return dpl.Export(plain(rows), Points(ob)), nil
}

// change runs fn on the locked workflow after refusing a change of its
// DPL while the DPL gate is submitted, passed or waived; it then moves the
// DPL gate pending -> in_progress.
func (s *Service) change(ctx context.Context, actor onboarding.Actor, id string, fn func(ctx context.Context, ob onboarding.Onboarding, rows []Row) error) error {
	return s.d.Onboarding.Mutate(ctx, actor, id, func(ctx context.Context, ob onboarding.Onboarding) error {
		g, err := s.d.Onboarding.GateForKind(ctx, ob, onboarding.KindDPL)
		if err != nil {
			return err
		}
		if err := onboarding.GateLocked(g); err != nil {
			return err
		}
		rows, err := s.Rows(ctx, ob)
		if err != nil {
			return err
		}
		if err := fn(ctx, ob, rows); err != nil {
			return err
		}
		return s.d.Onboarding.TouchGate(ctx, ob, onboarding.KindDPL)
	})
}

func validate(r dpl.Row, ob onboarding.Onboarding) (dpl.Row, error) {
	r, fes := dpl.Validate(r, Points(ob), func(member string) string { return "body." + member })
	return r, dpl.Err(fes)
}

// rowChanges lists the members of a row for the audit trail: [old, new].
func rowChanges(old, r *dpl.Row) map[string][2]any {
	m := func(r *dpl.Row) map[string]any {
		if r == nil {
			return map[string]any{}
		}
		return map[string]any{"point_name": r.PointName, "description": r.Description, "protocol": r.Protocol, "address": r.Address,
			"data_type": r.DataType, "unit": r.Unit, "scale": r.Scale, "offset": r.Offset, "direction": string(r.Direction), "notes": r.Notes}
	}
	o, n := m(old), m(r)
	out := map[string][2]any{}
	for _, k := range dpl.Columns {
		if o[k] != n[k] {
			out[k] = [2]any{o[k], n[k]}
		}
	}
	return out
}

func rowTarget(id string) onboarding.Target { return onboarding.Target{Type: "dpl_row", ID: id} }

// Create adds a row to the onboarding's list.
func (s *Service) Create(ctx context.Context, actor onboarding.Actor, id string, in dpl.Row) (Row, error) {
	var out Row
	err := s.change(ctx, actor, id, func(ctx context.Context, ob onboarding.Onboarding, rows []Row) error {
		r, err := validate(in, ob)
		if err != nil {
			return err
		}
		if err := dpl.Clash(plain(rows), r); err != nil {
			return err
		}
		rid, err := uuid.NewV7()
		if err != nil {
			return err
		}
		r.ID = rid.String()
		out = Row{Row: r, OnboardingID: ob.ID, UpdatedAt: s.now(), UpdatedBy: actor.Name}
		if err := s.d.Store.InsertRow(ctx, ob.OrganizationID, out); err != nil {
			return err
		}
		return s.d.Onboarding.Audit(ctx, actor, ob, "dpl_row.created", rowTarget(r.ID), rowChanges(nil, &r))
	})
	return out, err
}

func rowNotFound(id string) error {
	return errs.E(errs.NotFound, CodeRowNotFound, "no DPL row %q", id)
}

func find(rows []Row, id string) (Row, error) {
	i := slices.IndexFunc(rows, func(r Row) bool { return r.ID == id })
	if i < 0 {
		return Row{}, rowNotFound(id)
	}
	return rows[i], nil
}

// Update replaces a row as a whole; ifMatch ("" for none) must be the
// row's current ETag, else 409 edit_conflict. The change clears the row's
// last test result.
func (s *Service) Update(ctx context.Context, actor onboarding.Actor, id, rowID string, in dpl.Row, ifMatch string) (Row, error) {
	var out Row
	err := s.change(ctx, actor, id, func(ctx context.Context, ob onboarding.Onboarding, rows []Row) error {
		old, err := find(rows, rowID)
		if err != nil {
			return err
		}
		if ifMatch != "" && ifMatch != "*" && ifMatch != ETag(old) {
			return errs.Conflictf(onboarding.CodeEditConflict, "DPL row %s changed since version %s; read it again", rowID, ifMatch)
		}
		r, err := validate(in, ob)
		if err != nil {
			return err
		}
		r.ID = rowID
		if err := dpl.Clash(plain(rows), r); err != nil {
			return err
		}
		out = Row{Row: r, OnboardingID: ob.ID, UpdatedAt: s.now(), UpdatedBy: actor.Name}
		if err := s.d.Store.UpdateRow(ctx, ob.OrganizationID, out); err != nil {
			return err
		}
		return s.d.Onboarding.Audit(ctx, actor, ob, "dpl_row.updated", rowTarget(rowID), rowChanges(&old.Row, &r))
	})
	return out, err
}

// Delete removes a row.
func (s *Service) Delete(ctx context.Context, actor onboarding.Actor, id, rowID string) error {
	return s.change(ctx, actor, id, func(ctx context.Context, ob onboarding.Onboarding, rows []Row) error {
		old, err := find(rows, rowID)
		if err != nil {
			return err
		}
		if err := s.d.Store.DeleteRow(ctx, ob.OrganizationID, ob.ID, rowID); err != nil {
			return err
		}
		return s.d.Onboarding.Audit(ctx, actor, ob, "dpl_row.deleted", rowTarget(rowID), rowChanges(&old.Row, nil))
	})
}

// ImportResult is what an import did.
type ImportResult struct {
	Created, Updated, Deleted int
	Rows                      []Row // the list after the import
}

// Import applies a CSV file (dpl.Import) in mode, all or nothing: 422
// listing each refused cell at csv.row[N].<column>.
func (s *Service) Import(ctx context.Context, actor onboarding.Actor, id string, data []byte, mode dpl.Mode) (ImportResult, error) {
	var out ImportResult
	err := s.change(ctx, actor, id, func(ctx context.Context, ob onboarding.Onboarding, rows []Row) error {
		points := Points(ob)
		imported, fes := dpl.Import(data, points)
		if err := importErr(fes); err != nil {
			return err
		}
		res, fes := dpl.MergeRows(plain(rows), imported, mode, points)
		if err := importErr(fes); err != nil {
			return err
		}
		// Rows that change are deleted and inserted again (same id), so
		// that the unique indexes never see a swap half done.
		for _, r := range append(slices.Clone(res.Deleted), res.Updated...) {
			if err := s.d.Store.DeleteRow(ctx, ob.OrganizationID, ob.ID, r.ID); err != nil {
				return err
			}
		}
		now := s.now()
		for _, r := range res.Updated {
			if err := s.d.Store.InsertRow(ctx, ob.OrganizationID, Row{Row: r, OnboardingID: ob.ID, UpdatedAt: now, UpdatedBy: actor.Name}); err != nil {
				return err
			}
		}
		for _, r := range res.Created {
			rid, err := uuid.NewV7()
			if err != nil {
				return err
			}
			r.ID = rid.String()
			if err := s.d.Store.InsertRow(ctx, ob.OrganizationID, Row{Row: r, OnboardingID: ob.ID, UpdatedAt: now, UpdatedBy: actor.Name}); err != nil {
				return err
			}
		}
		out.Created, out.Updated, out.Deleted = len(res.Created), len(res.Updated), len(res.Deleted)
		if err := s.d.Onboarding.Audit(ctx, actor, ob, "dpl.imported", onboarding.Target{Type: "onboarding", ID: ob.ID}, map[string][2]any{
			"mode": {nil, string(mode)}, "created": {nil, out.Created}, "updated": {nil, out.Updated}, "deleted": {nil, out.Deleted},
		}); err != nil {
			return err
		}
		var err error
		out.Rows, err = s.Rows(ctx, ob)
		return err
	})
	return out, err
}

// importErr is the 422 of an import's refused cells, each with its code
// (invalid_value, unknown_column, dpl_point_exists, ...) in the message.
func importErr(fes []dpl.FieldError) error {
	if len(fes) == 0 {
		return nil
	}
	e := errs.E(errs.Invalid, errs.CodeValidationFailed, "the file was not imported: %d problems", len(fes))
	for _, fe := range fes {
		e.Fields = append(e.Fields, errs.FieldError{Location: fe.Location, Message: fmt.Sprintf("%s: %s", fe.Code, fe.Message), Value: fe.Value})
	}
	return e
}

// dplRequirement is the DPL gate's "every required template point has a
// row": one unmet dpl.<point> per missing point.
func (s *Service) dplRequirement(ctx context.Context, ob onboarding.Onboarding, _ onboarding.Gate, _ onboarding.GateDefinition) ([]onboarding.Unmet, error) {
	rows, err := s.d.Store.Rows(ctx, ob.OrganizationID, ob.ID)
	if err != nil {
		return nil, err
	}
	var out []onboarding.Unmet
	for _, p := range dpl.MissingPoints(plain(rows), Points(ob)) {
		out = append(out, onboarding.Unmet{Location: "dpl." + p, Detail: "the required point has no row"})
	}
	return out, nil
}

// finite drops NaN and ±Inf, the absent measurements.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
