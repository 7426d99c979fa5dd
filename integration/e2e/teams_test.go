package e2e

import (
	"encoding/json"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVaultsOnOneNeo4jNeverOverwriteEachOther: two vaults synced into one
// Neo4j are two projects (each vault's identity, kept in its
// .vaultgraph/vault.json): the second sync deletes nothing of the first,
// a server of the first answers its own notes and not the second's, both
// report different project IDs, a copy of the first vault on the same host
// is refused with a message saying what to do, and --adopt makes a vault
// the project of an older vaultgraph ("default").
func TestVaultsOnOneNeo4jNeverOverwriteEachOther(t *testing.T) {
	t.Parallel()
	st := neo4jStore(t)
	env := processEnv(t, st)
	one := copyVault(t, map[string]string{"only-in-one.md": "first vault"})
	two := filepath.Join(t.TempDir(), "two")
	writeFile(t, two, "only-in-two.md", "second vault")
	writeFile(t, two, "other.md", "[[only-in-two]]")

	sync := func(vault string, extra ...string) (int, string) {
		code, _, stderr := runProc(t, env, append([]string{"sync", "--vault", vault, "--store", "neo4j"}, extra...)...)
		return code, stderr
	}
	if code, stderr := sync(one); code != 0 {
		t.Fatalf("sync one: exit %d\n%s", code, stderr)
	}
	if code, stderr := sync(two); code != 0 || !strings.Contains(stderr, `"deleted":0`) {
		t.Fatalf("sync two: exit %d\n%s", code, stderr)
	}
	if _, stderr := sync(one); !strings.Contains(stderr, `"deleted":0`) || !strings.Contains(stderr, `"written":0`) {
		t.Fatalf("a sync of one after two wrote or deleted notes:\n%s", stderr)
	}
	ids := map[string]string{}
	for _, v := range []string{one, two} {
		raw, err := os.ReadFile(filepath.Join(v, ".vaultgraph", "vault.json"))
		if err != nil {
			t.Fatal(err)
		}
		var id struct{ ID, Key string }
		if err := json.Unmarshal(raw, &id); err != nil || id.ID == "" {
			t.Fatalf("identity of %s: %s", v, raw)
		}
		ids[v] = id.ID
	}
	if ids[one] == ids[two] {
		t.Fatalf("two vaults share the identity %s", ids[one])
	}

	c := startStdio(t, st, one)
	if n := getNode(t, c, map[string]any{"id": "only-in-one.md"}); n == nil {
		t.Fatal("vault one's server lost its own note")
	}
	if n := getNode(t, c, map[string]any{"id": "only-in-two.md"}); n != nil {
		t.Fatal("vault one's server answers vault two's note")
	}

	// A copy of vault one on the same host would write vault one's
	// project: refused, saying how to give it its own identity.
	cp := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(cp, os.DirFS(one)); err != nil {
		t.Fatal(err)
	}
	code, stderr := sync(cp)
	if code == 0 || !strings.Contains(stderr, "is a copy of") || !strings.Contains(stderr, ".vaultgraph/vault.json") {
		t.Fatalf("a copy was not refused: exit %d\n%s", code, stderr)
	}
	if err := os.Remove(filepath.Join(cp, ".vaultgraph", "vault.json")); err != nil {
		t.Fatal(err)
	}
	if code, stderr := sync(cp); code != 0 {
		t.Fatalf("the copy with its own identity: exit %d\n%s", code, stderr)
	}
	if n := getNode(t, c, map[string]any{"id": "only-in-one.md"}); n == nil {
		t.Fatal("syncing the copy changed vault one's project")
	}

	// An older vaultgraph's project "default": a vault without identity
	// is told how to adopt it, and --adopt makes it that project.
	old := filepath.Join(t.TempDir(), "old")
	writeFile(t, old, "legacy.md", "from before identities")
	writeFile(t, old, ".vaultgraph/vault.json", `{"id": "0b6c8e3a-5e4e-4a3b-9a55-6f1f7c1e2d3f", "key": "default"}`)
	if code, stderr := sync(old); code != 0 {
		t.Fatalf("sync the old vault: exit %d\n%s", code, stderr)
	}
	if err := os.RemoveAll(filepath.Join(old, ".vaultgraph")); err != nil {
		t.Fatal(err)
	}
	if code, stderr := sync(old); code != 0 || !strings.Contains(stderr, "--adopt default") {
		t.Fatalf("a vault without identity beside an older project: exit %d, no hint\n%s", code, stderr)
	}
	if code, stderr := sync(old, "--adopt", "default"); code != 0 {
		t.Fatalf("sync --adopt default: exit %d\n%s", code, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(old, ".vaultgraph", "vault.json"))
	if err != nil || !strings.Contains(string(raw), `"key": "default"`) {
		t.Fatalf("after --adopt the identity is %s (%v)", raw, err)
	}
	if code, stderr := sync(old, "--adopt", "no-such-project"); code == 0 || !strings.Contains(stderr, "no project") {
		t.Fatalf("adopting a project that is not there: exit %d\n%s", code, stderr)
	}
}

// TestReplicasOfOneVaultBehaveAsOneServer: two "serve --http --watch=false"
// replicas of one vault and one "sync --watch" worker on one Neo4j, as a
// team deploys them (README): a note created through one replica is read
// by the other, which can then change its tags, rename it and delete it,
// and each change is seen by the first. The figures are the time from a
// write's answer to the other replica seeing it.
func TestReplicasOfOneVaultBehaveAsOneServer(t *testing.T) {
	t.Parallel()
	st := neo4jStoreSharing(t)
	vault := copyVault(t, nil)
	worker := startProc(t, processEnv(t, st), nil, append([]string{"sync", "--watch", "--vault", vault}, st.args...)...)
	worker.waitLog(t, "vault: sync done", readyTimeout)
	a := startHTTP(t, st, vault, "127.0.0.1:0", "--watch=false")
	b := startHTTP(t, st, vault, "127.0.0.1:0", "--watch=false")
	ca, cb := httpClient(t, a.url(), rwToken), httpClient(t, b.url(), rwToken)
	initialize(t, ca)
	initialize(t, cb)

	seen := func(c *client.Client, what string, check func() bool) time.Duration {
		t.Helper()
		start := time.Now()
		if !eventually(watchTimeout, check) {
			t.Fatalf("the other replica never saw %s", what)
		}
		return time.Since(start)
	}
	var lags []string
	created := callTool(t, ca, "create_node", map[string]any{"title": "Made by A", "content": "from replica A", "tags": []string{"a"}})
	var n struct{ ID string }
	created.decode(t, &n)
	lags = append(lags, "create "+seen(cb, "the new note", func() bool { return getNode(t, cb, map[string]any{"id": n.ID}) != nil }).String())

	if r := callTool(t, cb, "update_node", map[string]any{"id": n.ID, "tags": []string{"replica"}}); r.isError {
		t.Fatalf("replica B cannot update a note A created: %s", r.text)
	}
	lags = append(lags, "tags "+seen(ca, "the new tags", func() bool {
		return strings.Contains(callTool(t, ca, "search_by_tags", map[string]any{"tags": []string{"replica"}}).text, n.ID)
	}).String())

	renamed := callTool(t, cb, "update_node", map[string]any{"id": n.ID, "title": "Renamed by B"})
	if renamed.isError {
		t.Fatalf("replica B cannot rename it: %s", renamed.text)
	}
	var r struct{ ID string }
	renamed.decode(t, &r)
	lags = append(lags, "rename "+seen(ca, "the rename", func() bool {
		return getNode(t, ca, map[string]any{"id": r.ID}) != nil && getNode(t, ca, map[string]any{"id": n.ID}) == nil
	}).String())

	if d := callTool(t, ca, "delete_node", map[string]any{"id": r.ID}); !strings.Contains(d.text, `"deleted":true`) {
		t.Fatalf("replica A cannot delete the note B renamed: %s", d.text)
	}
	lags = append(lags, "delete "+seen(cb, "the delete", func() bool { return getNode(t, cb, map[string]any{"id": r.ID}) == nil }).String())
	t.Logf("replicas: a write through one replica was seen by the other after %s", strings.Join(lags, ", "))
}
