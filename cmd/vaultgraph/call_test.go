package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A mistyped tool name is refused with the closest names, at most
// maxSuggestions of them, nearest first.
func TestCheckNameSuggestsTheClosest(t *testing.T) {
	names := []string{"get_node", "get_neighbors", "get_hubs", "search", "search_by_tags", "create_node", "memory_recall"}
	for _, tc := range []struct {
		name string
		want string // the error's suggestion; "" none, "-" no error
	}{
		{"get_node", "-"},
		{"get_ndoe", "did you mean get_node"},
		{"Get_Node", "did you mean get_node"},
		{"serch", "did you mean search?"},
		{"search_by_tag", "did you mean search_by_tags, search"},
		{"recall", "did you mean memory_recall"},
		{"frobnicate", ""},
	} {
		err := checkName(names, tc.name)
		switch {
		case tc.want == "-":
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
		case err == nil:
			t.Errorf("%s: accepted", tc.name)
		case tc.want == "" && strings.Contains(err.Error(), "did you mean"):
			t.Errorf("%s: %v, want no suggestion", tc.name, err)
		case !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestCallOfAnUnknownToolOpensNothing (issue 47.6): a tool name that no
// process could serve for the configured toolsets fails at once with the
// closest names, before the store is opened or the vault read: nothing is
// logged, the state folder is not created, the vault gets no identity.
// A tool of a toolset that is not selected fails the same way.
func TestCallOfAnUnknownToolOpensNothing(t *testing.T) {
	isolate(t)
	vault := newVault(t)
	r := runCLI(t, "call", "get_nod", `{"id":"Home.md"}`, "--vault", vault)
	assert.Equal(t, exitError, r.code)
	assert.Empty(t, r.stdout)
	assert.Equal(t, "vaultgraph: no tool \"get_nod\" in this configuration; did you mean get_node? (the configuration's toolsets decide which tools exist: `vaultgraph call --help`)\n", r.stderr)
	_, err := os.Stat(os.Getenv("XDG_STATE_HOME"))
	assert.True(t, errors.Is(err, fs.ErrNotExist), "the state folder is not created: %v", err)
	_, err = os.Stat(filepath.Join(vault, ".vaultgraph"))
	assert.True(t, errors.Is(err, fs.ErrNotExist), "the vault gets no identity: %v", err)

	r = runCLI(t, "call", "get_hubs", "--vault", vault, "--toolsets", "kb")
	assert.Equal(t, exitError, r.code)
	assert.Contains(t, r.stderr, `no tool "get_hubs" in this configuration`)
}
