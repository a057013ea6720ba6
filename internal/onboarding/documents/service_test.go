package documents_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/objstore/embedded"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/documents"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

var platform = onboarding.Actor{Kind: onboarding.ActorUser, ID: "u-p", Name: "Paula Platform", OrganizationID: auth.PlatformOrganization,
	Role: onboarding.RolePlatformOnboarding}

// fixture registers acme's asset bess-1 with a workflow and returns the
// services, the embedded object store and the clocks.
func fixture(t *testing.T, b store.Backend, opts ...documents.Option) (*documents.Service, *onboarding.Service, onboarding.Onboarding, *embedded.Store, *clock.Manual, *clock.Manual) {
	t.Helper()
	ctx := context.Background()
	clk, sec := clock.NewManual(testkit.Start), clock.NewManual(testkit.SecurityStart)
	if err := identity.NewDirectory(b.Directory(), clk, "http://atcp.test").EnsureOrganization(ctx, "acme", "Acme"); err != nil {
		t.Fatal(err)
	}
	registry := assets.NewService(b.Assets(), clk)
	a := assets.NewAsset("bess-1", "acme", "One", "Leipzig", assets.Standalone)
	it := assets.FullControl
	a.IntegrationType = &it
	if err := registry.EnsureAsset(ctx, a); err != nil {
		t.Fatal(err)
	}
	objects, err := embedded.Open(t.TempDir(), "http://atcp.test", sec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { objects.Close() })
	obs := onboarding.NewService(b.Onboardings(), registry, clk)
	svc := documents.NewService(b.OnboardingDocuments(), obs, objects, clk, sec, opts...)
	ob, err := obs.Create(ctx, platform, onboarding.CreateRequest{AssetID: "bess-1"})
	if err != nil {
		t.Fatal(err)
	}
	return svc, obs, ob, objects, clk, sec
}

// TestConcurrentPresigns: the 20 pending uploads of a workflow are counted
// under its lock, also when requests race.
func TestConcurrentPresigns(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		svc, _, ob, _, _, _ := fixture(t, b)
		const n = documents.MaxPendingUploads + 6
		results := make(chan error, n)
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				_, err := svc.Presign(context.Background(), platform, ob.ID, documents.UploadRequest{DocumentType: "installation_photo_antenna",
					GateDefinitionID: "fc_installation", Filename: "a.jpg", ContentType: documents.JPEG, SizeBytes: 10})
				results <- err
			})
		}
		wg.Wait()
		close(results)
		ok := 0
		for err := range results {
			var e *errs.Error
			switch {
			case err == nil:
				ok++
			case !errors.As(err, &e) || e.Code != documents.CodePendingUploadLimit:
				t.Errorf("presign: %v", err)
			}
		}
		if ok != documents.MaxPendingUploads {
			t.Fatalf("%d presigns succeeded, want %d", ok, documents.MaxPendingUploads)
		}
	})
}

// TestHousekeep: the job removes the objects of documents deleted 30 days
// before and of abandoned uploads a day after their presign, and keeps
// the rows with object_removed_at.
func TestHousekeep(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		svc, _, ob, objects, clk, sec := fixture(t, b)
		pdf := []byte("%PDF-1.7\n%%EOF\n")
		up := func(typ, gate string, finalize bool) documents.Document {
			t.Helper()
			u, err := svc.Presign(ctx, platform, ob.ID, documents.UploadRequest{DocumentType: typ, GateDefinitionID: gate, Filename: "a.pdf",
				ContentType: documents.PDF, SizeBytes: int64(len(pdf))})
			if err != nil {
				t.Fatal(err)
			}
			if err := objects.Put(ctx, u.Document.ObjectKey, bytes.NewReader(pdf), int64(len(pdf)), documents.PDF); err != nil {
				t.Fatal(err)
			}
			if !finalize {
				return u.Document
			}
			d, err := svc.Finalize(ctx, platform, ob.ID, u.Document.ID)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		deletedOld := up("dpl_signed", "fc_dpl", true)
		if err := svc.Delete(ctx, platform, ob.ID, deletedOld.ID); err != nil {
			t.Fatal(err)
		}
		abandoned := up("prequalification_certificate", "fc_prequalification", false)
		clk.Advance(20 * 24 * time.Hour)
		sec.Advance(20 * 24 * time.Hour)
		kept := up("test_results_signed", "fc_comm_test", true)
		if err := svc.Delete(ctx, platform, ob.ID, kept.ID); err != nil {
			t.Fatal(err)
		}
		fresh := up("betr", "fc_prequalification", false)
		current := up("single_line_diagram", "fc_installation", true)

		clk.Advance(11 * 24 * time.Hour)
		sec.Advance(11 * 24 * time.Hour)
		now := clk.Now()
		n, err := svc.Housekeep(ctx, now)
		if err != nil || n != 3 { // deletedOld, abandoned and fresh (days old, its URL expired), not kept (deleted 11 days ago)
			t.Fatalf("housekeep removed %d: %v", n, err)
		}
		removed := map[string]bool{deletedOld.ID: true, abandoned.ID: true, fresh.ID: true}
		all, err := b.OnboardingDocuments().List(ctx, "acme", ob.ID)
		if err != nil || len(all) != 5 {
			t.Fatalf("rows %d: %v", len(all), err)
		}
		for _, d := range all {
			_, statErr := objects.Stat(ctx, d.ObjectKey)
			switch {
			case removed[d.ID] && (d.ObjectRemovedAt == nil || !d.ObjectRemovedAt.Equal(now) || !errs.Is(statErr, errs.NotFound)):
				t.Errorf("%s (%s) not removed: %v %v", d.ID, d.DocumentType, d.ObjectRemovedAt, statErr)
			case !removed[d.ID] && (d.ObjectRemovedAt != nil || statErr != nil):
				t.Errorf("%s (%s) removed: %v %v", d.ID, d.DocumentType, d.ObjectRemovedAt, statErr)
			}
		}
		if n, err := svc.Housekeep(ctx, now); err != nil || n != 0 {
			t.Fatalf("second run removed %d: %v", n, err)
		}
		if _, err := svc.Download(ctx, platform, ob.ID, current.ID); err != nil {
			t.Fatal(err)
		}
	})
}

// TestHousekeepRetention: the retention of deleted documents' objects is
// the service's setting (ATCP_OBJECT_RETENTION_DAYS), 30 days by default.
func TestHousekeepRetention(t *testing.T) {
	for _, c := range []struct {
		name    string
		opts    []documents.Option
		removed bool
	}{
		{"default", nil, false},
		{"7 days", []documents.Option{documents.WithDeletedRetention(7 * 24 * time.Hour)}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
				ctx := context.Background()
				svc, _, ob, objects, clk, sec := fixture(t, b, c.opts...)
				pdf := []byte("%PDF-1.7\n%%EOF\n")
				u, err := svc.Presign(ctx, platform, ob.ID, documents.UploadRequest{DocumentType: "dpl_signed", GateDefinitionID: "fc_dpl",
					Filename: "a.pdf", ContentType: documents.PDF, SizeBytes: int64(len(pdf))})
				if err != nil {
					t.Fatal(err)
				}
				if err := objects.Put(ctx, u.Document.ObjectKey, bytes.NewReader(pdf), int64(len(pdf)), documents.PDF); err != nil {
					t.Fatal(err)
				}
				if _, err := svc.Finalize(ctx, platform, ob.ID, u.Document.ID); err != nil {
					t.Fatal(err)
				}
				if err := svc.Delete(ctx, platform, ob.ID, u.Document.ID); err != nil {
					t.Fatal(err)
				}
				clk.Advance(10 * 24 * time.Hour)
				sec.Advance(10 * 24 * time.Hour)
				n, err := svc.Housekeep(ctx, clk.Now())
				if err != nil {
					t.Fatal(err)
				}
				_, statErr := objects.Stat(ctx, u.Document.ObjectKey)
				if removed := n == 1 && errs.Is(statErr, errs.NotFound); removed != c.removed || n > 1 {
					t.Fatalf("deleted 10 days ago: %d removed (%v), want removed %v", n, statErr, c.removed)
				}
			})
		})
	}
}

// TestCertificateExists: a prequalification result may cite only an
// available, not deleted prequalification_certificate of its onboarding.
func TestCertificateExists(t *testing.T) {
	ctx := context.Background()
	b := testkit.OpenSQLite(t)
	svc, _, ob, objects, _, _ := fixture(t, b)
	pdf := []byte("%PDF-1.7\n%%EOF\n")
	up := func(typ string, finalize bool) documents.Document {
		t.Helper()
		u, err := svc.Presign(ctx, platform, ob.ID, documents.UploadRequest{DocumentType: typ, GateDefinitionID: "fc_prequalification",
			Filename: "c.pdf", ContentType: documents.PDF, SizeBytes: int64(len(pdf))})
		if err != nil {
			t.Fatal(err)
		}
		if err := objects.Put(ctx, u.Document.ObjectKey, bytes.NewReader(pdf), int64(len(pdf)), documents.PDF); err != nil {
			t.Fatal(err)
		}
		if !finalize {
			return u.Document
		}
		d, err := svc.Finalize(ctx, platform, ob.ID, u.Document.ID)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	cert, pending, betr := up("prequalification_certificate", true), up("prequalification_certificate", false), up("betr", true)
	for _, c := range []struct {
		name, onboarding, id string
		want                 bool
	}{
		{"available certificate", ob.ID, cert.ID, true},
		{"pending upload", ob.ID, pending.ID, false},
		{"another document type", ob.ID, betr.ID, false},
		{"another onboarding", "0190a5c0-0000-7000-8000-000000000000", cert.ID, false},
		{"malformed id", ob.ID, "nope", false},
	} {
		got, err := svc.CertificateExists(ctx, "acme", c.onboarding, c.id)
		if err != nil || got != c.want {
			t.Errorf("%s: %v %v, want %v", c.name, got, err, c.want)
		}
	}
	if err := svc.Delete(ctx, platform, ob.ID, cert.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := svc.CertificateExists(ctx, "acme", ob.ID, cert.ID); err != nil || got {
		t.Fatalf("deleted certificate: %v %v", got, err)
	}
}
