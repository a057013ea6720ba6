package bids_test

import (
	"testing"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/markets/bids"
)

func TestCheckLive(t *testing.T) {
	for _, c := range []struct {
		status assets.OperationalStatus
		opts   []bids.Option
		ok     bool
	}{
		{assets.Live, nil, true},
		{assets.Onboarding, nil, false},
		{assets.OnboardingTesting, nil, false},
		{assets.Maintenance, nil, false},
		{assets.Offboarded, nil, false},
		{assets.Onboarding, []bids.Option{bids.AllowNotLive()}, true},
		{assets.Offboarded, []bids.Option{bids.AllowNotLive()}, true},
	} {
		a := assets.NewAsset("b", "acme", "b", "Kiel", assets.Standalone)
		a.OperationalStatus = c.status
		err := bids.NewOptions(c.opts...).CheckLive(a, "FCR")
		if c.ok != (err == nil) {
			t.Fatalf("%s with %d option(s): %v", c.status, len(c.opts), err)
		}
		if err != nil && (!errs.Is(err, errs.Conflict) || err.(*errs.Error).Code != "asset_not_live") {
			t.Fatalf("%s: %v, want 409 asset_not_live", c.status, err)
		}
	}
}
