package store_test

import (
	"context"
	"sync"
	"testing"

	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/contacts"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// TestOnboardingContactStore: contacts of one onboarding, the address
// unique case-insensitively among those not deleted (also under
// concurrent inserts), a deleted contact gone from reads and its address
// free again, and changes joining the onboarding's transaction.
func TestOnboardingContactStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		svc, _, _ := onboardingFixture(t, b)
		ob, err := svc.Create(ctx, obPlatform, onboarding.CreateRequest{AssetID: "bess-1"})
		if err != nil {
			t.Fatal(err)
		}
		s := b.OnboardingContacts()
		now := testkit.Start
		c := contacts.Contact{ID: "0190a3c4-0000-7000-8000-0000000000c1", OrganizationID: "acme", OnboardingID: ob.ID, Name: "Erika",
			Email: "Erika@EPC.example", Company: "EPC", Phone: "+4930123456",
			Roles: []onboarding.TaskRole{onboarding.RoleAssetOwner, onboarding.RoleEPC}, Language: "en", UserID: "u-a", CreatedAt: now, UpdatedAt: now}
		if err := s.InsertContact(ctx, c); err != nil {
			t.Fatal(err)
		}
		got, err := s.Contact(ctx, "acme", ob.ID, c.ID)
		if err != nil || got.Email != c.Email || len(got.Roles) != 2 || got.Roles[1] != onboarding.RoleEPC || !got.CreatedAt.Equal(now) || got.UserID != "u-a" {
			t.Fatalf("read %+v, %v", got, err)
		}
		if _, err := s.Contact(ctx, "beta", ob.ID, c.ID); !obCode(err, errs.NotFound, contacts.CodeContactNotFound) {
			t.Fatalf("another organisation's read: %v", err)
		}

		// Concurrent inserts of one address: one wins.
		var wg sync.WaitGroup
		results := make([]error, 4)
		for i := range results {
			wg.Go(func() {
				d := c
				d.ID = "0190a3c4-0000-7000-8000-0000000000d" + string(rune('0'+i))
				d.Email = "max@owner.example"
				results[i] = s.InsertContact(ctx, d)
			})
		}
		wg.Wait()
		won := 0
		for _, err := range results {
			switch {
			case err == nil:
				won++
			case !obCode(err, errs.Conflict, contacts.CodeContactExists):
				t.Fatalf("concurrent insert: %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d inserts of one address won", won)
		}
		dup := c
		dup.ID, dup.Email = "0190a3c4-0000-7000-8000-0000000000c2", "erika@epc.EXAMPLE"
		if err := s.InsertContact(ctx, dup); !obCode(err, errs.Conflict, contacts.CodeContactExists) {
			t.Fatalf("duplicate address: %v", err)
		}

		// An update rolled back with the onboarding's transaction leaves
		// the row as it was.
		err = svc.Mutate(ctx, obPlatform, ob.ID, func(ctx context.Context, _ onboarding.Onboarding) error {
			u := c
			u.Name, u.Roles = "Changed", []onboarding.TaskRole{onboarding.RoleTSO}
			if err := s.UpdateContact(ctx, u); err != nil {
				return err
			}
			return errs.Conflictf("test_rollback", "roll back")
		})
		if !obCode(err, errs.Conflict, "test_rollback") {
			t.Fatal(err)
		}
		if got, _ := s.Contact(ctx, "acme", ob.ID, c.ID); got.Name != "Erika" {
			t.Fatalf("rolled-back update kept: %+v", got)
		}
		u := c
		u.Email = "max@OWNER.example"
		if err := s.UpdateContact(ctx, u); !obCode(err, errs.Conflict, contacts.CodeContactExists) {
			t.Fatalf("update to a taken address: %v", err)
		}
		if err := s.DeleteContact(ctx, "acme", ob.ID, c.ID, now); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteContact(ctx, "acme", ob.ID, c.ID, now); !obCode(err, errs.NotFound, contacts.CodeContactNotFound) {
			t.Fatalf("second delete: %v", err)
		}
		if err := s.UpdateContact(ctx, c); !obCode(err, errs.NotFound, contacts.CodeContactNotFound) {
			t.Fatalf("update of a deleted contact: %v", err)
		}
		if err := s.InsertContact(ctx, dup); err != nil {
			t.Fatalf("the address of a deleted contact: %v", err)
		}
		list, err := s.Contacts(ctx, "acme", ob.ID)
		if err != nil || len(list) != 2 || list[0].ID != dup.ID { // same instant: by id
			t.Fatalf("list %+v, %v", list, err)
		}
	})
}
