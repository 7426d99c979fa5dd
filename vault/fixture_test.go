package vault

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

var update = flag.Bool("update", false, "rewrite testdata/vault.expected.json from the fixture vault")

const expectedGraphFile = "testdata/vault.expected.json"

// fixtureIgnore is the ignore configuration the fixture vault is synced with.
var fixtureIgnore = []string{"templates"}

// fixtureVault copies testdata/vault into a temporary folder and adds the
// file whose path differs from notes/index.md only by case. It is created
// here, not committed, so that the repository checks out on file systems
// that ignore case; the test is skipped on those.
func fixtureVault(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, os.DirFS("testdata/vault")))
	twin := filepath.Join(root, "Notes", "Index.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(twin), 0o755))
	if _, err := os.Stat(twin); err == nil {
		t.Skip("file system ignores letter case; the fixture needs case-colliding paths")
	}
	require.NoError(t, os.WriteFile(twin, []byte("# Index twin\n\nBack to [[Home]]. #twin\n"), 0o644))
	return root
}

// expectedGraph is the graph a sync of the fixture vault must produce.
type expectedGraph struct {
	Notes []expectedNote `json:"notes"`
}

type expectedNote struct {
	ID          string         `json:"id"`
	Path        string         `json:"path"`
	Title       string         `json:"title"`
	Tags        []string       `json:"tags"`
	Links       []expectedLink `json:"links"`
	Unresolved  []string       `json:"unresolved"`
	Frontmatter map[string]any `json:"frontmatter,omitempty"`
	Warnings    []string       `json:"warnings"`
}

type expectedLink struct {
	Raw     string `json:"raw"`
	Key     string `json:"key"`
	Target  string `json:"target"`
	Alias   string `json:"alias,omitempty"`
	Heading string `json:"heading,omitempty"`
	Embed   bool   `json:"embed,omitempty"`
}

// graphOf describes notes (read back from a store) as an expectedGraph. The
// warnings of each note are its parse warnings (parsing its file again) and
// one per unresolved link.
func graphOf(t testing.TB, root string, notes []core.Note) expectedGraph {
	t.Helper()
	sort.Slice(notes, func(i, j int) bool { return notes[i].ID < notes[j].ID })
	var g expectedGraph
	for _, n := range notes {
		raw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(n.Path)))
		require.NoError(t, err)
		_, warnings := Parse(n.Path, raw)
		tags := n.Tags
		if tags == nil { // stores may return no tags as nil or empty: the same
			tags = []string{}
		}
		en := expectedNote{
			ID: n.ID, Path: n.Path, Title: n.Title, Tags: tags,
			Links: []expectedLink{}, Unresolved: []string{}, Frontmatter: n.Frontmatter,
		}
		for _, l := range n.Links {
			en.Links = append(en.Links, expectedLink{Raw: l.Raw, Key: l.Key, Target: l.Target, Alias: l.Alias, Heading: l.Heading, Embed: l.Embed})
			if l.Target == "" {
				en.Unresolved = append(en.Unresolved, l.Key)
				target, _, _, _ := splitRawLink(l.Raw)
				warnings = append(warnings, brokenLink(target))
			}
		}
		en.Warnings = append([]string{}, warnings...)
		g.Notes = append(g.Notes, en)
	}
	return g
}

// splitRawLink returns the target as written of a Raw link, for the
// expected warnings.
func splitRawLink(raw string) (target, heading, alias string, embed bool) {
	p := parseNote("x.md", []byte(raw))
	if len(p.spans) == 0 {
		return raw, "", "", false
	}
	s := p.spans[0]
	return s.written, s.link.Heading, s.link.Alias, s.link.Embed
}

// checkGraph compares g with the expected graph file, or rewrites the file
// under -update.
func checkGraph(t testing.TB, g expectedGraph) {
	t.Helper()
	got, err := json.MarshalIndent(g, "", "  ")
	require.NoError(t, err)
	got = append(got, '\n')
	if *update {
		require.NoError(t, os.WriteFile(expectedGraphFile, got, 0o644))
		return
	}
	want, err := os.ReadFile(expectedGraphFile)
	require.NoError(t, err, "run go test ./vault -run Fixture -update to create it")
	assert.Equal(t, string(want), string(got), "graph differs from %s (go test ./vault -run Fixture -update rewrites it)", expectedGraphFile)
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func storeNotes(notes map[string]core.Note) []core.Note {
	out := make([]core.Note, 0, len(notes))
	for _, n := range notes {
		out = append(out, n)
	}
	return out
}

func TestFixtureGraph(t *testing.T) {
	root := fixtureVault(t)
	store := newFakeStore()
	m := newTestMirror(t, root, store, func(c *Config) { c.Ignore = fixtureIgnore })
	stats, err := m.Sync(t.Context())
	require.NoError(t, err)
	notes := store.snapshot()
	g := graphOf(t, root, storeNotes(notes))
	checkGraph(t, g)

	for _, n := range g.Notes {
		assert.ElementsMatch(t, dedupe(n.Warnings), m.Lint().get(n.Path), "the lint holds each note's problems once: %s", n.Path)
	}

	assert.Equal(t, len(notes), stats.Notes)
	assert.Equal(t, stats.Notes, stats.Written)
	for id := range notes {
		assert.NotContains(t, id, ".obsidian")
		assert.NotContains(t, id, ".trash")
		assert.NotContains(t, id, "templates/")
	}
}
