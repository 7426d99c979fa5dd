package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSearchIsOnByDefaultAndHiddenByNone runs `call search` on the example
// vault: the default configuration (the built-in model) finds a note by a
// paraphrase; embedding.provider none has no search tool at all.
func TestSearchIsOnByDefaultAndHiddenByNone(t *testing.T) {
	vault, err := filepath.Abs("../../examples/vault")
	require.NoError(t, err)
	isolate(t)
	state := t.TempDir()

	// Before the model's pass: the static vectors and keywords, and a
	// warning saying so.
	r := runCLI(t, "call", "search", `{"query": "chunking"}`, "--vault", vault, "--state-dir", state)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "sync --embed")
	assert.NotContains(t, r.stderr, "semantic: embedding notes", "call ran the transformer")

	r = runCLI(t, "sync", "--embed", "--vault", vault, "--state-dir", state)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "semantic: embedding done")

	// A later process finds every vector in the state directory.
	r = runCLI(t, "call", "search", `{"query": "splitting long documents into smaller pieces", "limit": 2}`,
		"--vault", vault, "--state-dir", state)
	require.Equal(t, 0, r.code, r.stderr)
	line, _, _ := strings.Cut(r.stdout, "\n")
	var hits []struct {
		ID    string  `json:"id"`
		Score float64 `json:"score"`
	}
	require.NoError(t, json.Unmarshal([]byte(line), &hits), r.stdout)
	require.Len(t, hits, 2)
	assert.Equal(t, "concepts/chunking.md", hits[0].ID)
	assert.True(t, hits[0].Score > 0 && hits[0].Score <= 1)
	assert.NotContains(t, r.stderr, "semantic: embedding notes", "a restart embeds nothing")
	assert.NotContains(t, r.stderr, "warning:", "every note has its vector")

	t.Setenv("VAULTGRAPH_EMBEDDING_PROVIDER", "none")
	r = runCLI(t, "call", "search", `{"query": "chunking"}`, "--vault", vault, "--state-dir", t.TempDir())
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, "no tool \"search\" in this configuration")
	require.NoError(t, os.Unsetenv("VAULTGRAPH_EMBEDDING_PROVIDER"))
}
