package vault

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/memstore"
)

// infoLines are the INFO lines about the notes' problems in logs.
func infoLines(logs *bytes.Buffer) []string {
	var out []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "level=INFO") && strings.Contains(l, "problems in notes") {
			out = append(out, l)
		}
	}
	logs.Reset()
	return out
}

// TestLintIsLoggedWhenItChanges (issue 47.6): the vault's problems are
// logged at a start only when they changed since the last start that
// logged them (kept in the state folder): a second start of an unchanged
// vault logs nothing, whether the store restores the index or a new store
// is filled; a new problem is logged alone, a fixed one counted; a later
// rescan logs a problem that appears while running; and without a state
// file every start logs them all, as before.
func TestLintIsLoggedWhenItChanges(t *testing.T) {
	root := writeVault(t, map[string]string{
		"a.md": "[[missing]]",
		"b.md": "---\ntags: [x, x]\n---\n[[a]]",
		"c.md": "fine",
	})
	state := filepath.Join(t.TempDir(), "state", "lint-logged")
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	store := memstore.New()
	start := func(store *memstore.Store, lintLog string, change ...func(*Config)) *Mirror {
		t.Helper()
		m := newTestMirror(t, root, store, append([]func(*Config){func(c *Config) { c.Logger = logger; c.LintLog = lintLog }}, change...)...)
		_, err := m.Sync(t.Context())
		require.NoError(t, err)
		return m
	}

	m := start(store, state)
	notes, problems := m.Lint().Count()
	require.Positive(t, problems, "the vault has problems: %v", m.Lint().All())
	lines := infoLines(&logs)
	require.Len(t, lines, 1)
	assert.Contains(t, lines[0], "vault: new problems in notes")
	assert.Contains(t, lines[0], "notes="+itoa(notes))
	assert.Contains(t, lines[0], "a.md: Broken link")
	_, err := os.Stat(state)
	require.NoError(t, err, "the fingerprint is kept in the state folder")

	start(store, state) // the index restored from the store
	assert.Empty(t, infoLines(&logs), "an unchanged vault logs nothing")
	start(memstore.New(), state) // a new store: every note read again
	assert.Empty(t, infoLines(&logs), "an unchanged vault logs nothing")
	start(memstore.New(), state, func(c *Config) { c.StagedBatch = 2 }) // a new store filled part by part
	assert.Empty(t, infoLines(&logs), "an unchanged vault logs nothing")

	writeFile(t, root, "d.md", "[[nowhere]]")
	writeFile(t, root, "a.md", "[[c]]")
	m = start(store, state)
	lines = infoLines(&logs)
	require.Len(t, lines, 1)
	assert.Contains(t, lines[0], "vault: new problems in notes")
	assert.Contains(t, lines[0], "problems=1")
	assert.Contains(t, lines[0], "fixed=1")
	assert.Contains(t, lines[0], "d.md: Broken link")
	assert.NotContains(t, lines[0], "a.md")

	start(store, state)
	assert.Empty(t, infoLines(&logs), "logged once")

	t.Run("a problem that appears while running is logged", func(t *testing.T) {
		writeFile(t, root, "e.md", "[[elsewhere]]")
		_, err := m.Sync(t.Context()) // a rescan
		require.NoError(t, err)
		lines := infoLines(&logs)
		require.Len(t, lines, 1)
		assert.Contains(t, lines[0], "e.md: Broken link")
		start(store, state)
		assert.Empty(t, infoLines(&logs), "and is not news at the next start")
	})

	t.Run("fixed problems are counted once", func(t *testing.T) {
		require.NoError(t, os.Remove(filepath.Join(root, "d.md")))
		require.NoError(t, os.Remove(filepath.Join(root, "e.md")))
		start(store, state)
		lines := infoLines(&logs)
		require.Len(t, lines, 1)
		assert.Contains(t, lines[0], "vault: problems in notes fixed since the last start")
		assert.Contains(t, lines[0], "fixed=2")
		start(store, state)
		assert.Empty(t, infoLines(&logs))
	})

	t.Run("without a state file every start logs them all", func(t *testing.T) {
		for range 2 {
			start(store, "")
			assert.Len(t, infoLines(&logs), 1)
		}
	})

	t.Run("a damaged state file logs them all again", func(t *testing.T) {
		require.NoError(t, os.WriteFile(state, []byte("not ours\n"), 0o600))
		start(store, state)
		assert.Len(t, infoLines(&logs), 1)
		start(store, state)
		assert.Empty(t, infoLines(&logs))
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
