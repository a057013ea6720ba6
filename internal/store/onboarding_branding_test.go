package store_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"atcp/internal/errs"
	"atcp/internal/onboarding/branding"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

func TestOnboardingBrandingStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withAssetOrganizations(t, b)
		s := b.OnboardingBranding()

		if _, err := s.Get(ctx, assetAcme, "acme"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("never set: %v", err)
		}
		full := branding.Branding{
			DisplayName: "Acme Onboarding", PrimaryColor: "#0a7cff", SupportEmail: "onboarding@acme.example",
			LogoURL: "https://acme.example/logo.png", DefaultLanguage: "en",
			Templates: map[string]branding.Template{"de": {Subject: "Zugang für {contact_name}", Intro: "Hallo\nWelt"}, "en": {Intro: "Hi"}},
			UpdatedAt: testkit.Start.Add(1234567 * time.Microsecond),
		}
		put := func(v branding.Branding) func(branding.Branding, bool) (branding.Branding, error) {
			return func(branding.Branding, bool) (branding.Branding, error) { return v, nil }
		}
		got, err := s.Update(ctx, assetAcme, "acme", func(cur branding.Branding, exists bool) (branding.Branding, error) {
			if exists || !reflect.DeepEqual(cur, branding.Branding{}) {
				t.Errorf("first update sees %+v, %v", cur, exists)
			}
			return full, nil
		})
		want := full
		want.OrganizationID = "acme"
		want.ETag = want.ComputeETag()
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("update:\n%+v, %v\nwant\n%+v", got, err, want)
		}
		if read, err := s.Get(ctx, assetAdmin, "acme"); err != nil || !reflect.DeepEqual(read, want) {
			t.Fatalf("get: %+v, %v", read, err)
		}
		// Another organisation sees nothing, neither reads nor writes.
		if _, err := s.Get(ctx, assetBeta, "acme"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta reads acme: %v", err)
		}
		if _, err := s.Update(ctx, assetBeta, "acme", put(full)); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta writes acme: %v", err)
		}
		if _, err := s.Update(ctx, assetAdmin, "nobody", put(full)); !errs.Is(err, errs.NotFound) {
			t.Fatalf("unknown organisation: %v", err)
		}

		// A banner alone: the settings never set read back empty.
		banner := branding.Branding{BannerKey: "org/beta/branding/banner/ab", BannerContentType: "image/png", UpdatedAt: testkit.Start}
		got, err = s.Update(ctx, assetAdmin, "beta", put(banner))
		if err != nil || got.DisplayName != "" || got.BannerKey != banner.BannerKey || len(got.Templates) != 0 || got.ETag == "" {
			t.Fatalf("banner only: %+v, %v", got, err)
		}

		// Stored reads the brandings of several organisations at once, and
		// leaves out those that have none.
		stored, err := s.Stored(ctx, "acme", "beta", "gamma")
		if err != nil || len(stored) != 2 || !reflect.DeepEqual(stored["acme"], want) || stored["beta"].BannerKey != banner.BannerKey {
			t.Fatalf("stored: %+v, %v", stored, err)
		}
		if stored, err := s.Stored(ctx, "gamma"); err != nil || len(stored) != 0 {
			t.Fatalf("stored of none: %+v, %v", stored, err)
		}

		// A failing change leaves the row as it was.
		refused := errs.Conflictf(branding.CodeEditConflict, "no")
		if _, err := s.Update(ctx, assetAcme, "acme", func(cur branding.Branding, exists bool) (branding.Branding, error) {
			if !exists || cur.ETag != want.ETag {
				t.Errorf("second update sees %+v, %v", cur, exists)
			}
			return branding.Branding{}, refused
		}); !errors.Is(err, refused) {
			t.Fatalf("refused change: %v", err)
		}
		if read, _ := s.Get(ctx, assetAcme, "acme"); !reflect.DeepEqual(read, want) {
			t.Fatalf("a refused change changed the row: %+v", read)
		}
	})
}

// TestOnboardingBrandingConcurrentUpdates: updates of one organisation
// take turns, so none is lost (each adds one to the display name's count).
func TestOnboardingBrandingConcurrentUpdates(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withAssetOrganizations(t, b)
		s := b.OnboardingBranding()
		const n = 8
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				_, err := s.Update(ctx, assetAcme, "acme", func(cur branding.Branding, _ bool) (branding.Branding, error) {
					cur.DisplayName += "x"
					cur.UpdatedAt = testkit.Start
					return cur, nil
				})
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if got, err := s.Get(ctx, assetAcme, "acme"); err != nil || len(got.DisplayName) != n {
			t.Fatalf("after %d concurrent updates: %q, %v", n, got.DisplayName, err)
		}
	})
}
