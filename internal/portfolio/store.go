package portfolio

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/auth"
	"atcp/internal/markets/afrr"
)

// Store keeps the cover steps. Steps are keyed by organisation (of the
// failing asset) and written by one planner at a time (its worker lease).
type Store interface {
	// OpenAt returns every step in force at t (From <= t < To).
	OpenAt(ctx context.Context, t time.Time) ([]Step, error)
	// Supersede ends the closing steps at t (a step that would last no
	// time is deleted) and inserts opening, in one transaction.
	Supersede(ctx context.Context, t time.Time, closing []Step, opening []Step) error
	// StepsIn returns every step of the quarter-hour starting at
	// quarterHour, ordered by From, failing asset, product and coverer.
	StepsIn(ctx context.Context, quarterHour time.Time) ([]Step, error)
	// List returns the steps visible to v that match f, ordered by
	// From, failing asset, product and coverer.
	List(ctx context.Context, v auth.Visibility, f Filter) ([]Step, error)
}

// Filter selects steps for List: those of OrganizationID, of PoolID when
// set, in which AssetID failed or covered when set, that overlap [Start,
// End) (document 1, rule 5).
type Filter struct {
	OrganizationID string
	PoolID         string
	AssetID        string
	Start, End     time.Time
	Limit          int
}

// PriceCents is a step price in integer euro cents for storage (backup
// prices have at most two decimals); nil for an uncovered step.
func PriceCents(p *decimal.Decimal) *int64 {
	if p == nil {
		return nil
	}
	c := afrr.PriceCents(*p)
	return &c
}

// PriceFromCents is PriceCents' inverse.
func PriceFromCents(c *int64) *decimal.Decimal {
	if c == nil {
		return nil
	}
	p := afrr.PriceFromCents(*c)
	return &p
}
