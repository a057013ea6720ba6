package store_test

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/contacts"
	"atcp/internal/errs"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

func testContact(assetID, name string) contacts.Contact {
	return contacts.Contact{
		AssetID: assetID, Name: name, Role: "Control room", Company: "Acme Süd GmbH", Email: name + "@acme.example",
		Phone: "+49 30 1234567", ChatWebhookURL: "https://hooks.slack.com/services/T0/B0/" + name,
		IsEmergency: true, Notifiable: true,
		CreatedAt: testkit.Start.Add(123456 * time.Microsecond), UpdatedAt: testkit.Start.Add(time.Second),
	}
}

func anyCount(int) error { return nil }

// storedContacts counts the rows of asset_contacts, whatever their asset.
func storedContacts(t *testing.T, b store.Backend) int {
	t.Helper()
	var n int
	err := b.(interface {
		RawSQL(context.Context, func(*sql.Conn) error) error
	}).RawSQL(context.Background(), func(c *sql.Conn) error {
		return c.QueryRowContext(context.Background(), `SELECT count(*) FROM asset_contacts`).Scan(&n)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestContactStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withSegmentableAssets(t, b)
		s := b.Contacts()

		if list, err := s.List(ctx, assetAcme, "bess-1"); err != nil || list == nil || len(list) != 0 {
			t.Fatalf("empty directory: %#v, %v", list, err)
		}
		full, err := s.Create(ctx, assetAcme, testContact("bess-1", "ops"), anyCount)
		if err != nil || full.ID == 0 || full.OrganizationID != "acme" {
			t.Fatalf("create: %+v, %v", full, err)
		}
		// A contact with only a name: the fields not given read back empty.
		bare, err := s.Create(ctx, assetAdmin, contacts.Contact{AssetID: "bess-1", Name: "Gate", CreatedAt: testkit.Start, UpdatedAt: testkit.Start}, anyCount)
		if err != nil || bare.ID <= full.ID {
			t.Fatalf("create bare: %+v, %v", bare, err)
		}
		other, err := s.Create(ctx, assetBeta, testContact("b-1", "beta-ops"), anyCount)
		if err != nil || other.OrganizationID != "beta" || other.ID == bare.ID || other.ID == full.ID {
			t.Fatalf("create on beta: %+v, %v", other, err)
		}

		for _, want := range []contacts.Contact{full, bare} {
			if got, err := s.Get(ctx, assetAcme, "bess-1", want.ID); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("round trip\n got %+v, %v\nwant %+v", got, err, want)
			}
		}
		if list, err := s.List(ctx, assetAdmin, "bess-1"); err != nil || !reflect.DeepEqual(list, []contacts.Contact{full, bare}) {
			t.Fatalf("list %+v, %v", list, err)
		}

		// Isolation: another organisation sees, changes and deletes nothing;
		// a contact is found only under its own asset.
		if list, err := s.List(ctx, assetBeta, "bess-1"); err != nil || len(list) != 0 {
			t.Fatalf("beta lists acme's contacts: %+v, %v", list, err)
		}
		if _, err := s.Get(ctx, assetBeta, "bess-1", full.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta reads acme's contact: %v", err)
		}
		if _, err := s.Get(ctx, assetAcme, "bess-2", full.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("read under another asset: %v", err)
		}
		changed := testContact("bess-1", "changed")
		changed.ID = full.ID
		if _, err := s.Replace(ctx, assetBeta, changed); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta replaces acme's contact: %v", err)
		}
		moved := changed
		moved.AssetID = "bess-2"
		if _, err := s.Replace(ctx, assetAcme, moved); !errs.Is(err, errs.NotFound) {
			t.Fatalf("replace under another asset: %v", err)
		}
		if err := s.Delete(ctx, assetBeta, "bess-1", full.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta deletes acme's contact: %v", err)
		}
		if err := s.Delete(ctx, assetAcme, "bess-2", full.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("delete under another asset: %v", err)
		}
		if _, err := s.Create(ctx, assetBeta, testContact("bess-1", "intruder"), func(int) error {
			t.Error("allow called for an invisible asset")
			return nil
		}); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta creates on acme's asset: %v", err)
		}
		if got, _ := s.Get(ctx, assetAcme, "bess-1", full.ID); !reflect.DeepEqual(got, full) {
			t.Fatalf("refused writes changed the contact: %+v", got)
		}

		// Replace overwrites every writable field, clears what is not
		// given, keeps the creation time and the organisation.
		cleared := contacts.Contact{ID: full.ID, AssetID: "bess-1", Name: "Renamed", Notifiable: true, UpdatedAt: testkit.Start.Add(time.Hour)}
		got, err := s.Replace(ctx, assetAcme, cleared)
		want := cleared
		want.OrganizationID, want.CreatedAt = "acme", full.CreatedAt
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("replace\n got %+v, %v\nwant %+v", got, err, want)
		}
		if read, _ := s.Get(ctx, assetAcme, "bess-1", full.ID); !reflect.DeepEqual(read, want) {
			t.Fatalf("replaced read back %+v", read)
		}
		if _, err := s.Replace(ctx, assetAcme, contacts.Contact{ID: 1 << 40, AssetID: "bess-1", Name: "x"}); !errs.Is(err, errs.NotFound) {
			t.Fatalf("replace of an unknown contact: %v", err)
		}

		// allow's refusal stores nothing.
		refused := errs.Conflictf("contact_limit_reached", "full")
		if _, err := s.Create(ctx, assetAcme, testContact("bess-1", "late"), func(n int) error {
			if n != 2 {
				t.Errorf("count %d, want 2", n)
			}
			return refused
		}); !errors.Is(err, refused) {
			t.Fatalf("refused create: %v", err)
		}

		// Deleted ids are never reused.
		if err := s.Delete(ctx, assetAcme, "bess-1", bare.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, assetAcme, "bess-1", bare.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("deleted twice: %v", err)
		}
		next, err := s.Create(ctx, assetAcme, testContact("bess-1", "next"), anyCount)
		if err != nil || next.ID <= other.ID {
			t.Fatalf("after deleting %d: new id %d, %v", bare.ID, next.ID, err)
		}
		if list, _ := s.List(ctx, assetAcme, "bess-1"); len(list) != 2 || list[0].ID != full.ID || list[1].ID != next.ID {
			t.Fatalf("list after delete %+v", list)
		}
	})
}

// TestContactsGoWithTheirAsset: deleting an asset deletes its contacts,
// and a deleted asset takes none.
func TestContactsGoWithTheirAsset(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withSegmentableAssets(t, b)
		s := b.Contacts()
		for _, id := range []string{"bess-1", "bess-1", "bess-2"} {
			if _, err := s.Create(ctx, assetAcme, testContact(id, "ops"), anyCount); err != nil {
				t.Fatal(err)
			}
		}
		if n := storedContacts(t, b); n != 3 {
			t.Fatalf("%d contacts stored", n)
		}
		if err := b.Assets().Delete(ctx, assetAcme, "bess-1", testkit.Start, func(context.Context, assets.Asset) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if n := storedContacts(t, b); n != 1 {
			t.Fatalf("%d contacts stored after deleting bess-1, want bess-2's 1", n)
		}
		if list, err := s.List(ctx, assetAdmin, "bess-1"); err != nil || len(list) != 0 {
			t.Fatalf("deleted asset lists %+v, %v", list, err)
		}
		if _, err := s.Create(ctx, assetAdmin, testContact("bess-1", "late"), anyCount); !errs.Is(err, errs.NotFound) {
			t.Fatalf("create on a deleted asset: %v", err)
		}
		// A deletion its check refuses keeps the contacts.
		refused := errs.Conflictf("asset_in_use", "busy")
		if err := b.Assets().Delete(ctx, assetAcme, "bess-2", testkit.Start, func(context.Context, assets.Asset) error { return refused }); !errors.Is(err, refused) {
			t.Fatal(err)
		}
		if n := storedContacts(t, b); n != 1 {
			t.Fatalf("%d contacts stored after a refused deletion", n)
		}
	})
}

// TestContactCapUnderConcurrentCreates: concurrent creates on one asset
// each see the count of the others that committed, so that allow's cap
// holds exactly.
func TestContactCapUnderConcurrentCreates(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withSegmentableAssets(t, b)
		s := b.Contacts()
		const limit, tries = 5, 12
		full := errs.Conflictf("contact_limit_reached", "full")
		var wg sync.WaitGroup
		errors := make([]error, tries)
		for i := range errors {
			wg.Go(func() {
				_, errors[i] = s.Create(ctx, assetAcme, testContact("bess-1", "ops"), func(n int) error {
					if n >= limit {
						return full
					}
					return nil
				})
			})
		}
		wg.Wait()
		created := 0
		for _, err := range errors {
			switch {
			case err == nil:
				created++
			case !errs.Is(err, errs.Conflict):
				t.Fatal(err)
			}
		}
		if list, _ := s.List(ctx, assetAcme, "bess-1"); created != limit || len(list) != limit {
			t.Fatalf("%d creates succeeded, %d contacts stored; want %d", created, len(list), limit)
		}
	})
}
