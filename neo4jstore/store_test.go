package neo4jstore

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/core/storetest"
	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
)

// Every test here runs against a real Neo4j from neo4jtest: NEO4J_URI, a
// container, or the local launcher (scripts/neo4j-local). Tests write to
// projects of their own, so they share the server's database.
// TestMain runs the tests four at a time unless -parallel says otherwise:
// they mostly wait for Neo4j. The tests that stop, freeze or change the
// schema of the shared server are not parallel, so go test runs them
// before all of the others.
func TestMain(m *testing.M) {
	flag.Parse()
	if err := neo4jtest.DefaultParallel(4); err != nil {
		fmt.Fprintln(os.Stderr, "neo4jstore:", err)
		os.Exit(1)
	}
	os.Exit(neo4jtest.Main(m))
}

// configFor returns a Config reaching the test server.
// configFor is the store's Config for the test server. Its call timeout
// is generous (2 min, not the default 30 s): a first write to a cold
// server on a loaded machine ran past 30 s, and the tests time no call
// (those about timeouts set their own).
func configFor(srv *neo4jtest.Server) Config {
	return Config{URI: srv.URI, User: srv.User, Password: srv.Password, Database: srv.Database, Timeout: 2 * time.Minute}
}

// openStore opens a Store on the test server, closed when t ends.
func openStore(t testing.TB) *Neo4jStore {
	t.Helper()
	return openStoreWith(t, func(*Config) {})
}

func openStoreWith(t testing.TB, adjust func(*Config)) *Neo4jStore {
	t.Helper()
	cfg := configFor(neo4jtest.Get(t))
	adjust(&cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := Open(ctx, cfg)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

func TestStoreContract(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	storetest.RunWithOptions(t, func(*testing.T) core.StoreProvider { return s }, storetest.Options{Parallel: true})
}
