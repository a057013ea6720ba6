package prequal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
	"atcp/internal/onboarding"
	"atcp/internal/textrule"
)

// Error codes of prequalification.
const (
	// CodePrequalificationNotFound: the onboarding has no such prequalification (404).
	CodePrequalificationNotFound errs.Code = "prequalification_not_found"
	// CodePrequalificationExists: the product already has a prequalification that is not withdrawn (409).
	CodePrequalificationExists errs.Code = "prequalification_exists"
	// CodePrequalificationNotInTemplate: the workflow's template has no prequalification gate (409).
	CodePrequalificationNotInTemplate errs.Code = "prequalification_not_in_template"
	// CodePrequalificationDecided: a result is recorded only for a submitted prequalification (409).
	CodePrequalificationDecided errs.Code = "prequalification_decided"
	// CodePrequalificationWithdrawn: the prequalification is already withdrawn (409).
	CodePrequalificationWithdrawn errs.Code = "prequalification_withdrawn"
)

// Limits of the texts a manager writes.
const (
	MaxReferenceLength = 100
	MaxNoteLength      = 4000
	MaxReasonLength    = 500
)

// Product is what the asset is prequalified for.
type Product string

// The products: FCR (symmetric), aFRR positive and negative.
const (
	FCR     Product = "fcr"
	AFRRPos Product = "afrr_pos"
	AFRRNeg Product = "afrr_neg"
)

// Products lists every product.
var Products = []Product{FCR, AFRRPos, AFRRNeg}

// Status is where a prequalification stands.
type Status string

// The statuses: submitted to the TSO, decided (granted, partially_granted,
// rejected) or withdrawn.
const (
	Submitted        Status = "submitted"
	Granted          Status = "granted"
	PartiallyGranted Status = "partially_granted"
	Rejected         Status = "rejected"
	Withdrawn        Status = "withdrawn"
)

// Prequalification is one product's prequalification at the TSO.
type Prequalification struct {
	ID                    string // prequalification_id, a UUID
	OrganizationID        string // the onboarding's
	OnboardingID          string
	Product               Product
	TSO                   assets.TSO
	RequestedMW           float64
	SubmittedOn           calendar.Day
	TSOReference          string
	Status                Status
	PrequalifiedMW        *float64
	ValidFrom             *calendar.Day
	DecidedOn             *calendar.Day
	DecisionNote          string
	CertificateDocumentID string
	WithdrawReason        string
	RecordedBy            string // the name of who recorded it, then its result
	CreatedAt, UpdatedAt  time.Time
}

// Store persists prequalifications; reads are filtered by auth.Visibility
// in the query, and every method joins the transaction ctx carries.
type Store interface {
	// Insert stores p: 409 prequalification_exists when its product has one
	// that is not withdrawn (a unique partial index decides under
	// concurrency).
	Insert(ctx context.Context, p Prequalification) error
	// Get returns one of a visible onboarding's prequalifications: 404
	// prequalification_not_found otherwise.
	Get(ctx context.Context, v auth.Visibility, onboardingID, id string) (Prequalification, error)
	// List returns a visible onboarding's prequalifications, oldest first.
	List(ctx context.Context, v auth.Visibility, onboardingID string) ([]Prequalification, error)
	// Update stores p's status and result members.
	Update(ctx context.Context, p Prequalification) error
}

// Certificates tells whether a document is a prequalification_certificate
// of an onboarding (the documents group implements it).
type Certificates interface {
	Exists(ctx context.Context, organizationID, onboardingID, documentID string) (bool, error)
}

// Service records prequalifications on the onboarding core's workflows.
type Service struct {
	core   *onboarding.Service
	store  Store
	assets onboarding.Assets
	certs  Certificates
	clk    clock.Clock
}

// NewService returns the prequalification service and registers the
// core's requirement "prequalification". certs nil refuses every
// certificate_document_id (422) until the documents group provides them.
func NewService(core *onboarding.Service, store Store, registry onboarding.Assets, certs Certificates, clk clock.Clock) *Service {
	s := &Service{core: core, store: store, assets: registry, certs: certs, clk: clk}
	core.AddRequirement(onboarding.RequirePrequalification, s.unmet)
	return s
}

// unmet lists every submitted prequalification without a result as
// prequalification.<product>.
func (s *Service) unmet(ctx context.Context, ob onboarding.Onboarding, _ onboarding.Gate, _ onboarding.GateDefinition) ([]onboarding.Unmet, error) {
	list, err := s.store.List(ctx, auth.Visibility{All: true}, ob.ID)
	if err != nil {
		return nil, err
	}
	var out []onboarding.Unmet
	for _, p := range list {
		if p.Status == Submitted {
			out = append(out, onboarding.Unmet{Location: "prequalification." + string(p.Product), Detail: "has no result from the TSO yet"})
		}
	}
	return out, nil
}

func (s *Service) now() time.Time { return s.clk.Now().UTC().Truncate(time.Microsecond) }

// List returns the prequalifications of a workflow the actor sees.
func (s *Service) List(ctx context.Context, actor onboarding.Actor, onboardingID string) ([]Prequalification, error) {
	ob, err := s.core.Get(ctx, actor, onboardingID)
	if err != nil {
		return nil, err
	}
	return s.store.List(ctx, actor.Visibility(), ob.ID)
}

// Get returns one prequalification of a workflow the actor sees.
func (s *Service) Get(ctx context.Context, actor onboarding.Actor, onboardingID, id string) (Prequalification, error) {
	ob, err := s.core.Get(ctx, actor, onboardingID)
	if err != nil {
		return Prequalification{}, err
	}
	if !onboarding.ValidID(id) {
		return Prequalification{}, notFound(id)
	}
	return s.store.Get(ctx, actor.Visibility(), ob.ID, id)
}

func notFound(id string) error {
	return errs.E(errs.NotFound, CodePrequalificationNotFound, "no prequalification %q", id)
}

// CreateRequest is the body of POST …/prequalifications.
type CreateRequest struct {
	Product      string
	RequestedMW  float64
	TSO          string        // "" for the asset's
	SubmittedOn  *calendar.Day // nil for today in Berlin
	TSOReference string
}

// Create records a submission to the TSO (platform only): requested_mw
// above 0 and at most the asset's usable power.
func (s *Service) Create(ctx context.Context, actor onboarding.Actor, onboardingID string, r CreateRequest) (Prequalification, error) {
	var p Prequalification
	err := s.core.Mutate(ctx, actor, onboardingID, func(ctx context.Context, ob onboarding.Onboarding) error {
		if err := actor.RequirePlatform("record prequalifications"); err != nil {
			return err
		}
		if _, err := s.core.GateForKind(ctx, ob, onboarding.KindPrequalification); err != nil {
			return errs.Conflictf(CodePrequalificationNotInTemplate, "template %s has no prequalification gate", ob.TemplateID)
		}
		a, err := s.assets.Get(ctx, auth.Visibility{All: true}, ob.AssetID)
		if err != nil {
			return err
		}
		// A version 7 id orders the prequalifications of one platform instant as recorded.
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		now := s.now()
		p = Prequalification{ID: id.String(), OrganizationID: ob.OrganizationID, OnboardingID: ob.ID, Product: Product(r.Product),
			RequestedMW: r.RequestedMW, SubmittedOn: calendar.DayOf(now), TSOReference: r.TSOReference, Status: Submitted,
			RecordedBy: actor.Name, CreatedAt: now, UpdatedAt: now}
		if r.SubmittedOn != nil {
			p.SubmittedOn = *r.SubmittedOn
		}
		var v errs.Validation
		if !slices.Contains(Products, p.Product) {
			v.Add("product", "must be fcr, afrr_pos or afrr_neg", r.Product)
		}
		switch {
		case r.RequestedMW <= 0:
			v.Add("requested_mw", "must be above 0", r.RequestedMW)
		case a.UsablePowerCapacityMW == nil:
			v.Add("requested_mw", fmt.Sprintf("asset %s has no usable_power_capacity_mw to bound it", a.ID), r.RequestedMW)
		case r.RequestedMW > *a.UsablePowerCapacityMW:
			v.Add("requested_mw", fmt.Sprintf("must be at most the asset's usable_power_capacity_mw %g", *a.UsablePowerCapacityMW), r.RequestedMW)
		}
		switch {
		case r.TSO != "":
			t, err := assets.ParseTSO(r.TSO)
			if err != nil {
				v.Add("tso", err.Error(), r.TSO)
			}
			p.TSO = t
		case a.TSO != nil:
			p.TSO = *a.TSO
		default:
			v.Add("tso", fmt.Sprintf("is required: asset %s has no tso", a.ID), nil)
		}
		checkText(&v, "tso_reference", r.TSOReference, MaxReferenceLength)
		if err := v.Err(); err != nil {
			return err
		}
		if err := s.store.Insert(ctx, p); err != nil {
			return err
		}
		if err := s.core.TouchGate(ctx, ob, onboarding.KindPrequalification); err != nil {
			return err
		}
		return s.core.Audit(ctx, actor, ob, "prequalification.created", target(p), map[string][2]any{
			"product": {nil, string(p.Product)}, "requested_mw": {nil, p.RequestedMW}, "tso": {nil, string(p.TSO)},
			"status": {nil, string(Submitted)},
		})
	})
	return p, err
}

func target(p Prequalification) onboarding.Target {
	return onboarding.Target{Type: "prequalification", ID: p.ID}
}

func checkText(v *errs.Validation, loc, s string, limit int) {
	if n := utf8.RuneCountInString(s); n > limit {
		v.Add(loc, fmt.Sprintf("must be at most %d characters", limit), n)
		return
	}
	textrule.CheckText(v, loc, s)
}

// ResultRequest is the body of …/result.
type ResultRequest struct {
	Status                string
	PrequalifiedMW        *float64
	DecidedOn             *calendar.Day // nil for today in Berlin
	ValidFrom             *calendar.Day
	DecisionNote          string
	CertificateDocumentID string
}

// Result records the TSO's decision on a submitted prequalification
// (platform only) and writes the asset's prequalified capacity of the
// product (0 when rejected) in the same transaction.
func (s *Service) Result(ctx context.Context, actor onboarding.Actor, onboardingID, id string, r ResultRequest) (Prequalification, error) {
	var p Prequalification
	var assetID string
	err := s.core.Mutate(ctx, actor, onboardingID, func(ctx context.Context, ob onboarding.Onboarding) error {
		if err := actor.RequirePlatform("record prequalification results"); err != nil {
			return err
		}
		var err error
		if p, err = s.inside(ctx, ob, id); err != nil {
			return err
		}
		if p.Status != Submitted {
			return errs.Conflictf(CodePrequalificationDecided, "prequalification %s is %s; withdraw it and submit again to correct it", p.ID, p.Status)
		}
		if err := s.checkResult(ctx, ob, p, r); err != nil {
			return err
		}
		mw := 0.0
		if r.PrequalifiedMW != nil {
			mw = *r.PrequalifiedMW
		}
		if Status(r.Status) == Rejected {
			mw = 0
		}
		decided := calendar.DayOf(s.now())
		if r.DecidedOn != nil {
			decided = *r.DecidedOn
		}
		p.Status, p.PrequalifiedMW, p.DecidedOn, p.ValidFrom = Status(r.Status), &mw, &decided, r.ValidFrom
		p.DecisionNote, p.CertificateDocumentID, p.RecordedBy, p.UpdatedAt = r.DecisionNote, r.CertificateDocumentID, actor.Name, s.now()
		if err := s.store.Update(ctx, p); err != nil {
			return err
		}
		if err := s.core.Audit(ctx, actor, ob, "prequalification.decided", target(p), map[string][2]any{
			"status": {string(Submitted), string(p.Status)}, "prequalified_mw": {nil, mw},
		}); err != nil {
			return err
		}
		assetID = ob.AssetID
		return s.setCapacity(ctx, actor, ob, p.Product, mw)
	})
	if assetID != "" {
		s.assets.Forget(assetID)
	}
	return p, err
}

// inside reads a prequalification of ob inside its transaction.
func (s *Service) inside(ctx context.Context, ob onboarding.Onboarding, id string) (Prequalification, error) {
	if !onboarding.ValidID(id) {
		return Prequalification{}, notFound(id)
	}
	return s.store.Get(ctx, auth.Visibility{All: true}, ob.ID, id)
}

func (s *Service) checkResult(ctx context.Context, ob onboarding.Onboarding, p Prequalification, r ResultRequest) error {
	var v errs.Validation
	st := Status(r.Status)
	switch st {
	case Granted, PartiallyGranted:
		switch mw := r.PrequalifiedMW; {
		case mw == nil:
			v.Add("prequalified_mw", "is required unless rejected", nil)
		case st == Granted && *mw != p.RequestedMW:
			v.Add("prequalified_mw", fmt.Sprintf("must be the requested %g when granted", p.RequestedMW), *mw)
		case st == PartiallyGranted && (*mw <= 0 || *mw >= p.RequestedMW):
			v.Add("prequalified_mw", fmt.Sprintf("must be above 0 and below the requested %g when partially granted", p.RequestedMW), *mw)
		}
	case Rejected:
		if r.PrequalifiedMW != nil && *r.PrequalifiedMW != 0 {
			v.Add("prequalified_mw", "must be absent or 0 when rejected", *r.PrequalifiedMW)
		}
	default:
		v.Add("status", "must be granted, partially_granted or rejected", r.Status)
	}
	if r.DecidedOn != nil && r.DecidedOn.String() < p.SubmittedOn.String() {
		v.Add("decided_on", "must not be before submitted_on "+p.SubmittedOn.String(), r.DecidedOn.String())
	}
	checkText(&v, "decision_note", r.DecisionNote, MaxNoteLength)
	if id := r.CertificateDocumentID; id != "" {
		ok := false
		if s.certs != nil && onboarding.ValidID(id) {
			var err error
			if ok, err = s.certs.Exists(ctx, ob.OrganizationID, ob.ID, id); err != nil {
				return err
			}
		}
		if !ok {
			v.Add("certificate_document_id", "is not a prequalification_certificate document of this onboarding", id)
		}
	}
	return v.Err()
}

// setCapacity writes the product's prequalified capacity to the asset
// through the registry, inside the transaction ctx carries, and audits it.
func (s *Service) setCapacity(ctx context.Context, actor onboarding.Actor, ob onboarding.Onboarding, product Product, mw float64) error {
	a, err := s.assets.Get(ctx, auth.Visibility{All: true}, ob.AssetID)
	if err != nil {
		return err
	}
	var u assets.Update
	var member string
	var old float64
	switch product {
	case FCR:
		u.FCRPrequalifiedMW, member, old = assets.Some(mw), "fcr_prequalified_capacity_mw", a.FCRPrequalifiedMW
	case AFRRPos:
		u.AFRRPrequalifiedPosMW, member, old = assets.Some(mw), "afrr_prequalified_capacity_pos_mw", a.AFRRPrequalifiedPosMW
	case AFRRNeg:
		u.AFRRPrequalifiedNegMW, member, old = assets.Some(mw), "afrr_prequalified_capacity_neg_mw", a.AFRRPrequalifiedNegMW
	}
	_, err = s.assets.Update(ctx, auth.Visibility{All: true}, ob.AssetID, u)
	if errs.Is(err, errs.Invalid) {
		var e *errs.Error
		errors.As(err, &e)
		out := errs.Conflictf(onboarding.CodeAssetUpdateRefused, "the asset refused %s %g: %s", member, mw, e.Message)
		out.Fields = e.Fields
		return out
	}
	if err != nil {
		return err
	}
	return s.core.Audit(ctx, actor, ob, "asset.capacity_changed", onboarding.Target{Type: "asset", ID: ob.AssetID},
		map[string][2]any{member: {old, mw}})
}

// Withdraw ends a prequalification (platform only); from a decided state
// it also resets the asset's figure of the product to 0.
func (s *Service) Withdraw(ctx context.Context, actor onboarding.Actor, onboardingID, id, reason string) (Prequalification, error) {
	var p Prequalification
	var assetID string
	err := s.core.Mutate(ctx, actor, onboardingID, func(ctx context.Context, ob onboarding.Onboarding) error {
		if err := actor.RequirePlatform("withdraw prequalifications"); err != nil {
			return err
		}
		var err error
		if p, err = s.inside(ctx, ob, id); err != nil {
			return err
		}
		if p.Status == Withdrawn {
			return errs.Conflictf(CodePrequalificationWithdrawn, "prequalification %s is already withdrawn", p.ID)
		}
		var v errs.Validation
		if strings.TrimSpace(reason) == "" {
			v.Add("reason", "is required", reason)
		}
		checkText(&v, "reason", reason, MaxReasonLength)
		if err := v.Err(); err != nil {
			return err
		}
		from := p.Status
		p.Status, p.WithdrawReason, p.UpdatedAt = Withdrawn, reason, s.now()
		if err := s.store.Update(ctx, p); err != nil {
			return err
		}
		if err := s.core.Audit(ctx, actor, ob, "prequalification.withdrawn", target(p), map[string][2]any{
			"status": {string(from), string(Withdrawn)}, "withdraw_reason": {nil, reason},
		}); err != nil {
			return err
		}
		if from == Submitted {
			return nil
		}
		assetID = ob.AssetID
		return s.setCapacity(ctx, actor, ob, p.Product, 0)
	})
	if assetID != "" {
		s.assets.Forget(assetID)
	}
	return p, err
}
