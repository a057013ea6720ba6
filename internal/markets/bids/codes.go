package bids

import "atcp/internal/errs"

// The codes of the bid engine, shared by every market that plugs its rules
// into it. A market's prequalified-capacity code is its own
// (Rules.CeilingCode).
const (
	// CodeBiddingNotOpen: a bid is placed, changed or deleted before its
	// market's bidding window for the interval opens (409).
	CodeBiddingNotOpen errs.Code = "bidding_not_open"
	// CodeGateClosed: a bid, or an aFRR backup-market override, is placed,
	// changed or deleted after its market's gate for the interval closed (409).
	CodeGateClosed errs.Code = "gate_closed"
	// CodeMarketNotEnabled: the asset does not take part in the market (409).
	CodeMarketNotEnabled errs.Code = "market_not_enabled"
	// CodeAssetSegmented: a bid on a physical asset whose segmentation is
	// active; its virtual assets bid instead (409).
	CodeAssetSegmented errs.Code = "asset_segmented"
	// CodeIdempotencyKeyInUse: another bid of the asset and interval uses
	// the idempotency key (409).
	CodeIdempotencyKeyInUse errs.Code = "idempotency_key_in_use"
	// CodeBidNotPending: changing or deleting a bid whose status no longer
	// allows it, or changing what a submitted bid keeps fixed (409).
	CodeBidNotPending errs.Code = "bid_not_pending"
	// CodePriceOutOfRange: the only validation failures are prices outside
	// the market's range (422, each named in errors).
	CodePriceOutOfRange errs.Code = "PRICE_OUT_OF_RANGE"
)

// CodeAssetNotLive: a bid is submitted or changed to commit more, or an
// aFRR backup-market default or override is set, for an asset whose
// asset_operational_status is not live (409; not in the demonstration
// environment, see AllowNotLive).
const CodeAssetNotLive errs.Code = "asset_not_live"
