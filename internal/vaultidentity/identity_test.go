package vaultidentity_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/internal/vaultidentity"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/vault"
)

// These tests run Identify in process against the embedded store; the
// same refusals and adoption against Neo4j, through the binary, are
// integration/e2e's TestVaultsOnOneNeo4jNeverOverwriteEachOther.

func identify(t *testing.T, store core.StoreProvider, kind, path, adopt string) (config.ProjectConfig, string, error) {
	t.Helper()
	var logs bytes.Buffer
	served := []config.ProjectConfig{{Path: path, Key: config.LegacyProjectKey}}
	err := vaultidentity.Identify(context.Background(), &config.Config{Store: kind}, served, store, adopt, slog.New(slog.NewTextHandler(&logs, nil)))
	return served[0], logs.String(), err
}

func readIdentity(t *testing.T, path string) vault.Identity {
	t.Helper()
	id, ok, err := vault.ReadIdentity(path)
	if err != nil || !ok {
		t.Fatalf("%s: identity %v, %v", path, ok, err)
	}
	return id
}

func TestIdentifyGivesANewVaultItsOwnIdentity(t *testing.T) {
	dir := t.TempDir()
	p, _, err := identify(t, memstore.New(), config.StoreEmbedded, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	id := readIdentity(t, dir)
	if p.ID != id.ID || p.Key != id.Key || id.Key != id.ID {
		t.Fatalf("served %s/%s, file %+v: want a new UUID as both", p.ID, p.Key, id)
	}
	again, _, err := identify(t, memstore.New(), config.StoreEmbedded, dir, "")
	if err != nil || again.ID != id.ID || again.Key != id.Key {
		t.Fatalf("a second start: %+v, %v; want the identity kept", again, err)
	}
}

// An older vaultgraph's notes under the legacy key: the embedded state
// has only ever been this vault's, so it keeps the key; a shared store
// (Neo4j) leaves them alone and says how to adopt them.
func TestIdentifyKeepsOrOffersTheLegacyProject(t *testing.T) {
	ctx := context.Background()
	withLegacy := func() *memstore.Store {
		s := memstore.New()
		if err := s.UpsertNotes(ctx, config.LegacyProjectKey, []core.Note{{ID: "a.md", Title: "a", Path: "a.md"}}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	p, _, err := identify(t, withLegacy(), config.StoreEmbedded, t.TempDir(), "")
	if err != nil || p.Key != config.LegacyProjectKey {
		t.Fatalf("embedded: key %q, %v; want %q", p.Key, err, config.LegacyProjectKey)
	}
	p, logs, err := identify(t, withLegacy(), config.StoreNeo4j, t.TempDir(), "")
	if err != nil || p.Key == config.LegacyProjectKey || !strings.Contains(logs, "--adopt "+config.LegacyProjectKey) {
		t.Fatalf("shared store: key %q, %v, logs %s; want a new key and the --adopt hint", p.Key, err, logs)
	}
}

func TestIdentifyRefusesAnotherVaultsProjectUnlessAdopted(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	theirs := core.NewUUID()
	if err := store.SaveProject(ctx, core.Project{Key: "shared", ID: theirs, Host: "elsewhere", Path: "/vaults/theirs"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := vault.WriteIdentity(dir, vault.Identity{ID: core.NewUUID(), Key: "shared"}); err != nil {
		t.Fatal(err)
	}
	_, _, err := identify(t, store, config.StoreNeo4j, dir, "")
	if !errors.Is(err, vaultidentity.ErrIdentity) || !strings.Contains(err.Error(), "--adopt shared") {
		t.Fatalf("got %v; want ErrIdentity saying how to adopt", err)
	}
	if _, _, err := identify(t, store, config.StoreNeo4j, dir, "no-such-project"); !errors.Is(err, vaultidentity.ErrIdentity) || !strings.Contains(err.Error(), "no project") {
		t.Fatalf("adopting a missing project: %v", err)
	}
	p, _, err := identify(t, store, config.StoreNeo4j, dir, "shared")
	if err != nil || p.ID != theirs || p.Key != "shared" {
		t.Fatalf("adopt: %+v, %v; want the record's id %s", p, err, theirs)
	}
	if id := readIdentity(t, dir); id.ID != theirs {
		t.Fatalf("after adopting, the file says %+v", id)
	}
}

func TestIdentifyRefusesACopyOnTheSameHost(t *testing.T) {
	ctx := context.Background()
	host, _ := os.Hostname()
	store := memstore.New()
	id := vault.NewIdentity()
	original, copied := t.TempDir(), t.TempDir()
	for _, dir := range []string{original, copied} {
		if err := vault.WriteIdentity(dir, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.SaveProject(ctx, core.Project{Key: id.Key, ID: id.ID, Host: host, Path: original}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := identify(t, store, config.StoreEmbedded, copied, ""); !errors.Is(err, vaultidentity.ErrIdentity) || !strings.Contains(err.Error(), "is a copy of") {
		t.Fatalf("got %v; want the copy refused", err)
	}
	if _, _, err := identify(t, store, config.StoreEmbedded, original, ""); err != nil {
		t.Fatalf("the original: %v", err)
	}
}
