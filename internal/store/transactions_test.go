package store_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/segmentation"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// TestTransactionsStayOnTheirConnection reads both backends' source: a
// store method holding a transaction must not touch a pool meanwhile. On
// sqlite::memory: a read beside the write transaction waits for it until
// the busy timeout (10 s, then SQLITE_BUSY); on PostgreSQL a second
// connection per transaction can exhaust the pool with every holder
// waiting for another. So the pools are reached only through the accessors
// that pick the transaction a context carries, and every function a
// transaction runs takes that context as ctx, shadowing the caller's.
func TestTransactionsStayOnTheirConnection(t *testing.T) {
	for _, c := range []struct {
		dir     string
		pools   []string // the DB's pool fields
		allowed []string // the functions that may touch them
	}{
		// stmt prepares on the read pool only outside a transaction;
		// prepareWrites runs from Migrate, before any. RawSQL serves test
		// harnesses.
		{"sqlite", []string{"r", "w", "jobs"}, []string{"Open", "Close", "Migrate", "read", "write", "tx", "stmt", "prepareWrites", "RawSQL"}},
		// listen takes a connection of its own for LISTEN.
		{"postgres", []string{"pool", "jobs"}, []string{"Open", "Close", "Ping", "Migrate", "conn", "poolFor", "tx", "listen", "RawSQL"}},
	} {
		t.Run(c.dir, func(t *testing.T) {
			entries, err := os.ReadDir(c.dir)
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			transactions := 0
			for _, e := range entries {
				if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
					continue
				}
				f, err := parser.ParseFile(fset, filepath.Join(c.dir, e.Name()), nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range f.Decls {
					fd, ok := d.(*ast.FuncDecl)
					if !ok || fd.Body == nil {
						continue
					}
					ast.Inspect(fd.Body, func(n ast.Node) bool {
						switch n := n.(type) {
						case *ast.SelectorExpr:
							if isDB(n.X) && contains(c.pools, n.Sel.Name) && !contains(c.allowed, fd.Name.Name) {
								t.Errorf("%s: %s uses the pool %s directly; use the accessor that honours the context's transaction",
									fset.Position(n.Pos()), fd.Name.Name, n.Sel.Name)
							}
						case *ast.CallExpr:
							sel, ok := n.Fun.(*ast.SelectorExpr)
							// join (run in the caller's transaction or a new one) is checked as tx.
							if !ok || (sel.Sel.Name != "tx" && sel.Sel.Name != "join") || !isDB(sel.X) || fd.Name.Name == "tx" || fd.Name.Name == "join" {
								return true
							}
							transactions++
							lit, ok := n.Args[len(n.Args)-1].(*ast.FuncLit)
							if !ok {
								t.Errorf("%s: pass tx a function literal", fset.Position(n.Pos()))
								return true
							}
							if p := lit.Type.Params.List; len(p) == 0 || len(p[0].Names) == 0 || p[0].Names[0].Name != "ctx" {
								t.Errorf("%s: the transaction's function must name its context ctx, shadowing the caller's", fset.Position(lit.Pos()))
							}
							ast.Inspect(lit.Body, func(n ast.Node) bool {
								if s, ok := n.(*ast.SelectorExpr); ok && isIdent(s.X, "context") && (s.Sel.Name == "Background" || s.Sel.Name == "TODO") {
									t.Errorf("%s: a context without the transaction inside a transaction", fset.Position(s.Pos()))
								}
								return true
							})
						}
						return true
					})
				}
			}
			if transactions < 20 {
				t.Fatalf("found %d transactions: is the check still looking at the right calls?", transactions)
			}
		})
	}
}

// isDB reports db or x.db.
func isDB(x ast.Expr) bool {
	if s, ok := x.(*ast.SelectorExpr); ok {
		return s.Sel.Name == "db"
	}
	return isIdent(x, "db")
}

func isIdent(x ast.Expr, name string) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Name == name
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestCallbacksRunInsideTheTransaction: the store methods that call back
// into domain code while holding a transaction (an asset's deletion
// guards, a design's checks) let the callback read other areas' stores
// inside that transaction, and refuse a write there instead of waiting for
// themselves. Besides every backend it runs on PostgreSQL with one pooled
// connection, where a read beside the transaction would find none free.
func TestCallbacksRunInsideTheTransaction(t *testing.T) {
	run := func(t *testing.T, b store.Backend) {
		withAssetOrganizations(t, b)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, id := range []string{"bess", "other"} {
			a := assets.NewAsset(id, "acme", id, "Kiel", assets.Standalone)
			a.CreatedAt, a.UpdatedAt = testkit.Start, testkit.Start
			if _, err := b.Assets().Create(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		// reads reads the stores the server's callbacks read.
		reads := func(ctx context.Context) error {
			if _, err := b.Assets().Get(ctx, assetAcme, "other"); err != nil {
				return err
			}
			if _, err := b.Assets().List(ctx, assetAcme); err != nil {
				return err
			}
			if _, err := b.Bids().CommittedAfter(ctx, "bess.a", testkit.Start); err != nil {
				return err
			}
			if _, err := b.Segmentations().Get(ctx, assetAcme, "other"); !errs.Is(err, errs.NotFound) {
				return err
			}
			_, err := b.Segmentations().ListActive(ctx, assetAcme)
			return err
		}
		design := segmentation.Segmentation{AssetID: "bess", OrganizationID: "acme", Mode: segmentation.Proportional,
			Status: segmentation.Active, Version: 1, UpdatedAt: testkit.Start,
			Segments: []segmentation.Segment{{ID: "a", Name: "A", Share: 0.5}, {ID: "b", Name: "B", Share: 0.5}}}
		if _, err := b.Segmentations().Change(ctx, assetAcme, "bess", func(ctx context.Context, _ string, _ *segmentation.Segmentation) (segmentation.Segmentation, error) {
			return design, reads(ctx)
		}); err != nil {
			t.Fatalf("change: %v", err)
		}
		if err := b.Segmentations().Delete(ctx, assetAcme, "bess", func(ctx context.Context, _ segmentation.Segmentation) error {
			return reads(ctx)
		}); err != nil {
			t.Fatalf("delete design: %v", err)
		}
		// A write in a callback is refused and the whole change rolls back.
		write := func(ctx context.Context, _ assets.Asset) error {
			a := assets.NewAsset("sneaked", "acme", "x", "Kiel", assets.Standalone)
			_, err := b.Assets().Create(ctx, a)
			return err
		}
		if err := b.Assets().Delete(ctx, assetAcme, "bess", testkit.Start, write); err == nil {
			t.Fatal("a write inside the deletion's transaction was accepted")
		}
		if _, err := b.Assets().Get(ctx, assetAcme, "sneaked"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("the refused write was stored: %v", err)
		}
		if err := b.Assets().Delete(ctx, assetAcme, "bess", testkit.Start, func(ctx context.Context, _ assets.Asset) error {
			return reads(ctx)
		}); err != nil {
			t.Fatalf("delete asset: %v", err)
		}
		if _, err := b.Assets().Get(ctx, assetAdmin, "bess"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("deleted asset read: %v", err)
		}
	}
	testkit.ForEachBackend(t, run)
	if testkit.PostgresURL() != "" {
		t.Run("postgres-one-connection", func(t *testing.T) {
			ctx := context.Background()
			b, err := store.Open(ctx, testkit.PostgresSchemaURL(t)+"&pool_max_conns=1&connect_timeout=2", "")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			if err := b.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			run(t, b)
		})
	}
}
