package segmentation

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/textrule"
)

// Mode is how a physical shortfall is shared among the segments.
type Mode string

const (
	// Proportional: every segment absorbs a shortfall pro rata to its share.
	Proportional Mode = "proportional"
	// Priority: segments are filled in ranking order (their order in the
	// design); the lowest-ranked absorb a shortfall first.
	Priority Mode = "priority"
)

// Modes lists every mode.
var Modes = []Mode{Proportional, Priority}

// Valid reports whether m is a known mode.
func (m Mode) Valid() bool { return m == Proportional || m == Priority }

// Status is the state of a design.
type Status string

const (
	// Draft: stored, no virtual assets exist.
	Draft Status = "draft"
	// Active: every segment is a virtual asset.
	Active Status = "active"
)

// Design limits; docs/segmentation.md explains them.
const (
	MinSegments        = 2
	MaxSegments        = 16
	MaxNameLength      = 200
	MaxCounterparty    = 200
	SegmentIDPattern   = `^[a-z0-9][a-z0-9-]{0,31}$`
	ColorPattern       = `^#[0-9a-fA-F]{6}$`
	shareSumTolerance  = 1e-6
	virtualIDSeparator = "."
)

var (
	segmentIDRE = regexp.MustCompile(SegmentIDPattern)
	colorRE     = regexp.MustCompile(ColorPattern)
)

// Segment is one part of the physical asset. Share is a fraction of the
// whole in (0, 1]; the shares of a design add up to 1.
type Segment struct {
	ID           string
	Name         string
	Share        float64
	Counterparty *string
	Color        *string
}

// Segmentation is the design of one physical asset.
type Segmentation struct {
	AssetID        string
	OrganizationID string
	Mode           Mode
	Status         Status
	Version        int64 // 1 on creation, bumped by every replace
	UpdatedAt      time.Time
	Segments       []Segment // in ranking order (matters for Priority)
}

// VirtualAssetID is the id of the virtual asset of segment segmentID.
func VirtualAssetID(parentAssetID, segmentID string) string {
	return parentAssetID + virtualIDSeparator + segmentID
}

// SplitVirtualAssetID splits a virtual asset id at its last dot: segment
// ids have no dots while parent ids may.
func SplitVirtualAssetID(id string) (parentAssetID, segmentID string, ok bool) {
	i := strings.LastIndex(id, virtualIDSeparator)
	if i <= 0 || !segmentIDRE.MatchString(id[i+1:]) {
		return "", "", false
	}
	return id[:i], id[i+1:], true
}

// Segment returns the segment with id.
func (s Segmentation) Segment(id string) (Segment, bool) {
	for _, g := range s.Segments {
		if g.ID == id {
			return g, true
		}
	}
	return Segment{}, false
}

// Shares returns the shares in ranking order, as Allocate takes them.
func (s Segmentation) Shares() []float64 {
	out := make([]float64, len(s.Segments))
	for i, g := range s.Segments {
		out[i] = g.Share
	}
	return out
}

// Validate checks a design for parentAssetID (422 naming body.mode and
// body.segments[i].field): a known mode, MinSegments..MaxSegments
// segments with unique ids whose virtual ids are valid asset ids, names,
// positive shares adding up to 1 (within 1e-6), hex colours.
func Validate(parentAssetID string, mode Mode, segments []Segment) error {
	var v errs.Validation
	if !mode.Valid() {
		v.Add("body.mode", fmt.Sprintf("must be one of %v", Modes), string(mode))
	}
	if len(segments) < MinSegments || len(segments) > MaxSegments {
		v.Add("body.segments", fmt.Sprintf("must have %d to %d segments", MinSegments, MaxSegments), len(segments))
	}
	seen := map[string]bool{}
	sum := 0.0
	for i, g := range segments {
		at := fmt.Sprintf("body.segments[%d].", i)
		switch {
		case !segmentIDRE.MatchString(g.ID):
			v.Add(at+"segment_id", "must match "+SegmentIDPattern, g.ID)
		case seen[g.ID]:
			v.Add(at+"segment_id", "must be unique within the segmentation", g.ID)
		case !assets.ValidID(VirtualAssetID(parentAssetID, g.ID)):
			v.Add(at+"segment_id", "makes the virtual asset id "+VirtualAssetID(parentAssetID, g.ID)+" longer than an asset id may be", g.ID)
		}
		seen[g.ID] = true
		if n := utf8.RuneCountInString(strings.TrimSpace(g.Name)); n == 0 || n > MaxNameLength {
			v.Add(at+"name", fmt.Sprintf("must have 1 to %d characters", MaxNameLength), g.Name)
		} else {
			textrule.CheckName(&v, at+"name", g.Name)
		}
		if math.IsNaN(g.Share) || math.IsInf(g.Share, 0) || g.Share <= 0 || g.Share > 1 {
			v.Add(at+"share", "must be a fraction in (0, 1]", g.Share)
		} else {
			sum += g.Share
		}
		if g.Counterparty != nil && utf8.RuneCountInString(*g.Counterparty) > MaxCounterparty {
			v.Add(at+"counterparty", fmt.Sprintf("must have at most %d characters", MaxCounterparty), *g.Counterparty)
		} else if g.Counterparty != nil {
			textrule.CheckName(&v, at+"counterparty", *g.Counterparty)
		}
		if g.Color != nil && !colorRE.MatchString(*g.Color) {
			v.Add(at+"color", "must be a hex colour #rrggbb", *g.Color)
		}
	}
	if v.Err() == nil && math.Abs(sum-1) > shareSumTolerance {
		v.Add("body.segments", "shares must add up to 1", sum)
	}
	return v.Err()
}

// VirtualAsset derives the virtual asset of segment g from its parent:
// same organisation and settings (the adapter among them), the id VirtualAssetID, the name
// "<parent name> / <segment name>", and every MW, MWh and MW/s capacity
// scaled by the share.
func VirtualAsset(parent assets.Asset, g Segment) assets.Asset {
	a := parent
	a.ID = VirtualAssetID(parent.ID, g.ID)
	a.Name = parent.Name + " / " + g.Name
	parentID := parent.ID
	a.ParentAssetID = &parentID
	scale := func(p *float64) *float64 {
		if p == nil {
			return nil
		}
		v := *p * g.Share
		return &v
	}
	a.UsablePowerCapacityMW = scale(parent.UsablePowerCapacityMW)
	a.UsableEnergyCapacityMWh = scale(parent.UsableEnergyCapacityMWh)
	a.GridConnectionPowerMW = scale(parent.GridConnectionPowerMW)
	a.MaxPosRampRateMWPerSec = scale(parent.MaxPosRampRateMWPerSec)
	a.MinNegRampRateMWPerSec = scale(parent.MinNegRampRateMWPerSec)
	a.AFRRPrequalifiedPosMW = parent.AFRRPrequalifiedPosMW * g.Share
	a.AFRRPrequalifiedNegMW = parent.AFRRPrequalifiedNegMW * g.Share
	a.FCRPrequalifiedMW = parent.FCRPrequalifiedMW * g.Share
	return a
}
