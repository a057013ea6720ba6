package settlement

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/auth"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

// ProductKey names a product of the settlement envelope (document 1).
type ProductKey string

// The product keys, in the order of document 1.
const (
	FCR            ProductKey = "fcr"
	FCRBackup      ProductKey = "fcr_backup"
	AFRRCPos4h     ProductKey = "afrrc_pos_4h"
	AFRRCNeg4h     ProductKey = "afrrc_neg_4h"
	AFRRCPos15min  ProductKey = "afrrc_pos_15min"
	AFRRCNeg15min  ProductKey = "afrrc_neg_15min"
	AFRREPos       ProductKey = "afrre_pos"
	AFRREPosBackup ProductKey = "afrre_pos_backup"
	AFRRENeg       ProductKey = "afrre_neg"
	AFRRENegBackup ProductKey = "afrre_neg_backup"
)

// ProductKeys are every product key, in the order of document 1: the
// envelope always shows all of them.
var ProductKeys = [productCount]ProductKey{FCR, FCRBackup, AFRRCPos4h, AFRRCNeg4h, AFRRCPos15min, AFRRCNeg15min,
	AFRREPos, AFRREPosBackup, AFRRENeg, AFRRENegBackup}

// Backup reports whether k is a backup product, whose object carries only
// revenue_total and penalty_total (the endpoint leaves out backup_fee_total).
func (k ProductKey) Backup() bool {
	return k == FCRBackup || k == AFRREPosBackup || k == AFRRENegBackup
}

// Figure is one product's settlement of one block, in EUR with two
// decimals. Revenue may be negative (energy at a negative marginal price:
// the provider pays); Penalty is what is deducted, never negative.
// BackupFee is what the asset pays the pool members that covered for it
// (zero on the backup products, which do not show it).
type Figure struct {
	Revenue, BackupFee, Penalty decimal.Decimal
}

// Equal reports whether the two figures are the same amounts.
func (f Figure) Equal(o Figure) bool {
	return f.Revenue.Equal(o.Revenue) && f.BackupFee.Equal(o.BackupFee) && f.Penalty.Equal(o.Penalty)
}

// Block is the settlement of one asset in one 15-minute block: a figure
// for each product the asset took part in. A product that is absent is
// zero (the envelope shows it so). ProcessedAt is when the figures last
// changed (document 1: it changes whenever the block is recomputed, and is
// unchanged when the data is).
type Block struct {
	OrganizationID string
	AssetID        string
	Start          time.Time // UTC quarter-hour
	Products       map[ProductKey]Figure
	ProcessedAt    time.Time
}

// Figure returns the block's figure of product k, zero when the asset did
// not take part in it.
func (b Block) Figure(k ProductKey) Figure {
	if f, ok := b.Products[k]; ok {
		return f
	}
	return Figure{}
}

// sameFigures reports whether two blocks of one asset hold the same
// products with the same amounts.
func sameFigures(a, b Block) bool {
	if a.OrganizationID != b.OrganizationID || len(a.Products) != len(b.Products) {
		return false
	}
	for k, f := range a.Products {
		g, ok := b.Products[k]
		if !ok || !f.Equal(g) {
			return false
		}
	}
	return true
}

// Changes compares the blocks stored for the quarter-hour starting at q
// with the blocks just computed for it: write are the computed blocks that
// are new or whose figures differ (their rows are replaced and get a new
// processed_at), drop the stored blocks that no longer have figures (their
// rows are deleted). A block whose figures are the same is in neither, so
// its processed_at stays. A computed block of another quarter-hour, or a
// second one of an asset, is an error.
func Changes(q time.Time, stored, computed []Block) (write, drop []Block, err error) {
	old := make(map[string]Block, len(stored))
	for _, b := range stored {
		old[b.AssetID] = b
	}
	seen := make(map[string]bool, len(computed))
	for _, b := range computed {
		if !b.Start.Equal(q) || seen[b.AssetID] {
			return nil, nil, fmt.Errorf("settlement: block of %s at %s among the blocks of %s", b.AssetID,
				b.Start.Format(time.RFC3339), q.Format(time.RFC3339))
		}
		seen[b.AssetID] = true
		s, ok := old[b.AssetID]
		delete(old, b.AssetID)
		if !ok || !sameFigures(s, b) {
			write = append(write, b)
		}
	}
	for _, b := range stored {
		if _, ok := old[b.AssetID]; ok {
			drop = append(drop, b)
		}
	}
	return write, drop, nil
}

// The products of a cover step.
const (
	StepFCR = "fcr"
	StepPos = "pos"
	StepNeg = "neg"
)

// CoverStep is one step of the pool dispatch: during [From, To) (inside
// one quarter-hour) FailingAssetID could not deliver MW of its obligation
// of Product; CoveringAssetID delivered it at BackupPrice.
// CoveringAssetID "" is uncovered (the penalty-bearing shortfall;
// BackupPrice nil). ObligationMW is the failing asset's whole obligation of
// that product in the quarter-hour (for apportioning activated energy).
type CoverStep struct {
	OrganizationID  string
	QuarterHour     time.Time
	Product         string // StepFCR, StepPos or StepNeg
	FailingAssetID  string
	CoveringAssetID string
	MW              float64
	ObligationMW    float64
	From, To        time.Time
	// BackupPrice is EUR/MWh for aFRR, EUR per MW and hour of cover for FCR.
	BackupPrice *decimal.Decimal
}

// CoverSteps reads the cover steps recorded for a quarter-hour (the pool
// dispatch implements it).
type CoverSteps interface {
	StepsIn(ctx context.Context, quarterHour time.Time) ([]CoverStep, error)
}

// AssetQuarter is a quarter-hour of an asset.
type AssetQuarter struct {
	AssetID string
	Start   time.Time
}

// Store keeps the settlement figures, one row per organisation, asset,
// block and product, and the job's progress.
type Store interface {
	// DeliveryBids returns what settling the quarter-hour starting at q
	// needs from the bids: the SUCCESSFUL FCR and aFRR capacity bids whose
	// interval contains q, and the aFRR energy bids of q in the statuses
	// PENDING, SUBMITTED, SUCCESSFUL, REJECTED and FALLBACK (the first two
	// tell that its outcomes are not in yet), of every organisation.
	DeliveryBids(ctx context.Context, q time.Time) ([]bids.Bid, error)
	// Save stores the figures computed for the quarter-hour starting at
	// q, of every organisation, atomically: blocks that Changes finds new
	// or different are rewritten with processed_at at, blocks stored but
	// no longer computed are deleted, the others are left as they are; the
	// Day of every asset with a block written or deleted is rendered
	// again from the day's figures in the same transaction. It
	// returns the number of blocks written or deleted. A block of another
	// quarter-hour or a second block of an asset is an error (Changes).
	Save(ctx context.Context, q time.Time, blocks []Block, at time.Time) (int, error)
	// Blocks returns the stored blocks of the organisation's assets in
	// assetIDs (nil: every asset of the organisation) that start in w
	// (block_start >= w.Start and < w.End), ordered by asset id and block
	// start; nothing for an organisation v does not allow.
	Blocks(ctx context.Context, v auth.Visibility, organizationID string, assetIDs []string, w calendar.Interval) ([]Block, error)
	// Days returns the rendered days of the organisation's assets in
	// assetIDs (nil: every asset of the organisation) from delivery day
	// from up to (not including) to, ordered by asset id and day; nothing
	// for an organisation v does not allow. Save keeps them: an asset-day
	// with figures has its Day (RenderDays of its blocks).
	Days(ctx context.Context, v auth.Visibility, organizationID string, assetIDs []string, from, to calendar.Day) ([]Day, error)
	// RenderPendingDays renders the days of the figures stored before the
	// days were (a database migrated to them holding figures), once; it
	// returns the number of days rendered.
	RenderPendingDays(ctx context.Context) (int, error)
	// PendingEnergy returns the quarter-hours in w (start_time >= w.Start
	// and < w.End) in which an asset of the organisation has an aFRR
	// energy bid still PENDING or SUBMITTED (no outcome yet), ordered by
	// asset id and start, each once; nothing for an organisation v does
	// not allow.
	PendingEnergy(ctx context.Context, v auth.Visibility, organizationID string, w calendar.Interval) ([]AssetQuarter, error)
	// Progress returns the start of the first quarter-hour the job has
	// not settled yet; false before its first run.
	Progress(ctx context.Context) (time.Time, bool, error)
	// SetProgress records it.
	SetProgress(ctx context.Context, next time.Time) error
}
