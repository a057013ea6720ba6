package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/documents"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

func TestOnboardingDocumentStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		svc, _, _ := onboardingFixture(t, b)
		ob, err := svc.Create(ctx, obPlatform, onboarding.CreateRequest{AssetID: "bess-1"})
		if err != nil {
			t.Fatal(err)
		}
		s := b.OnboardingDocuments()
		doc := func(at time.Time) documents.Document {
			id := uuid.NewString()
			return documents.Document{ID: id, OrganizationID: "acme", OnboardingID: ob.ID, GateDefinitionID: "fc_installation",
				DocumentType: "installation_photo_mdevice", LineageID: id, Version: 1, Filename: "Zähler.jpg", ContentType: documents.JPEG,
				SizeBytes: 1234, ObjectKey: documents.ObjectKey("acme", ob.ID, id), Status: documents.Pending, CreatedAt: at,
				UploadExpiresAt: testkit.SecurityStart.Add(15 * time.Minute), UploaderKind: onboarding.ActorContact, UploaderID: "c-1",
				UploaderName: "Jonas"}
		}
		d1, d2 := doc(testkit.Start), doc(testkit.Start.Add(time.Second))
		d2.ReplacesID, d2.LineageID, d2.Version = d1.ID, d1.ID, 2
		for _, d := range []documents.Document{d2, d1} {
			if err := s.Insert(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Get(ctx, "acme", ob.ID, d2.ID)
		if err != nil || got.ReplacesID != d1.ID || got.Version != 2 || !got.CreatedAt.Equal(d2.CreatedAt) ||
			!got.UploadExpiresAt.Equal(d2.UploadExpiresAt) || got.UploadedAt != nil || got.Filename != "Zähler.jpg" || got.Status != documents.Pending {
			t.Fatalf("get %+v %v", got, err)
		}
		for _, c := range [][3]string{{"beta", ob.ID, d1.ID}, {"acme", ob.ID, uuid.NewString()}, {"acme", uuid.NewString(), d1.ID}} {
			if _, err := s.Get(ctx, c[0], c[1], c[2]); !obCode(err, errs.NotFound, "document_not_found") {
				t.Fatalf("get %v: %v", c, err)
			}
		}
		at := testkit.Start.Add(time.Hour)
		d1.Status, d1.SHA256, d1.UploadedAt, d1.SupersededBy, d1.DeletedAt, d1.DeletedBy, d1.ObjectRemovedAt =
			documents.Available, "ab", &at, d2.ID, &at, "Paula", &at
		if err := s.Update(ctx, d1); err != nil {
			t.Fatal(err)
		}
		list, err := s.List(ctx, "acme", ob.ID)
		if err != nil || len(list) != 2 || list[0].ID != d1.ID || list[1].ID != d2.ID {
			t.Fatalf("list %+v %v", list, err)
		}
		if g := list[0]; g.Status != documents.Available || g.SHA256 != "ab" || !g.UploadedAt.Equal(at) || g.SupersededBy != d2.ID ||
			!g.DeletedAt.Equal(at) || g.DeletedBy != "Paula" || !g.ObjectRemovedAt.Equal(at) {
			t.Fatalf("updated %+v", g)
		}
		if other, err := s.List(ctx, "beta", ob.ID); err != nil || len(other) != 0 {
			t.Fatalf("beta lists %d: %v", len(other), err)
		}
		ghost := doc(testkit.Start)
		if err := s.Update(ctx, ghost); !obCode(err, errs.NotFound, "document_not_found") {
			t.Fatalf("update unknown: %v", err)
		}

		// Removable: deleted before the first bound, or pending/discarded,
		// created before the second with the URL expired at the third.
		d3 := doc(testkit.Start)
		d3.Status, d3.DeletedAt = documents.Available, &at
		d4 := doc(testkit.Start)
		d4.Status = documents.Discarded
		for _, d := range []documents.Document{d3, d4} {
			if err := s.Insert(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		ids := func(ds []documents.Document, err error) []string {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			out := []string{}
			for _, d := range ds {
				out = append(out, d.ID)
			}
			return out
		}
		late, expired := testkit.Start.Add(2*time.Hour), testkit.SecurityStart.Add(time.Hour)
		if got := ids(s.Removable(ctx, late, late, expired, 10)); len(got) != 3 || got[0] == d1.ID || got[1] == d1.ID || got[2] == d1.ID {
			t.Fatalf("removable %v (d1 %s is removed already)", got, d1.ID)
		}
		if got := ids(s.Removable(ctx, late, late, expired, 1)); len(got) != 1 {
			t.Fatalf("limit: %v", got)
		}
		if got := ids(s.Removable(ctx, testkit.Start, late, testkit.SecurityStart, 10)); len(got) != 0 {
			t.Fatalf("nothing due yet: %v", got)
		}
		if got := ids(s.Removable(ctx, late, testkit.Start, expired, 10)); len(got) != 1 || got[0] != d3.ID {
			t.Fatalf("only the deleted one: %v", got)
		}
	})
}
