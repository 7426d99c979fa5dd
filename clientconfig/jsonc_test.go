package clientconfig

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tailscale/hujson"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/jsonc/*.golden from what setup writes")

// TestJSONCFilesKeepEverythingButTheEntry: setup edits JSON and JSONC files
// (comments, trailing commas, tabs, CRLF, a file on one line) so that the
// line diff touches only the vaultgraph entry's lines (and adds the comma
// JSON needs after the member before it); comments, trailing commas, key
// order and the other servers' formatting survive; the result is what the
// golden file holds, parses, and means the old settings plus the entry; and
// running setup again is byte-identical.
func TestJSONCFilesKeepEverythingButTheEntry(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "jsonc", "*.json*"))
	require.NoError(t, err)
	files = append(files, filepath.Join("testdata", "cursor_mcp.json"))
	require.GreaterOrEqual(t, len(files), 8)
	for _, in := range files {
		for _, client := range []string{"cursor", "claude-code"} {
			name := filepath.Base(in) + " for " + client
			t.Run(name, func(t *testing.T) {
				c, _ := Lookup(client)
				old, err := os.ReadFile(in)
				require.NoError(t, err)
				path := filepath.Join(t.TempDir(), filepath.Base(in))
				require.NoError(t, os.WriteFile(path, old, 0o600))

				p, err := PlanServer(c, path, "vaultgraph", server)
				require.NoError(t, err)
				golden := strings.TrimSuffix(in, filepath.Ext(in)) + "." + client + ".golden"
				if *updateGolden {
					require.NoError(t, os.WriteFile(golden, p.New, 0o644))
				}
				want, err := os.ReadFile(golden)
				require.NoError(t, err, "run go test ./clientconfig -run TestJSONC -update")
				assert.Equal(t, string(want), string(p.New))

				stdOld, err := hujson.Standardize(bytes.Clone(old))
				require.NoError(t, err)
				stdNew, err := hujson.Standardize(bytes.Clone(p.New))
				require.NoError(t, err, "the result parses")
				assert.Equal(t, p.JSONC, !bytes.Equal(stdOld, old), "JSONC is reported")
				before, after := decode(t, stdOld), decode(t, stdNew)
				entry := after["mcpServers"].(map[string]any)["vaultgraph"].(map[string]any)
				assert.Equal(t, server.Command, entry["command"])
				assert.Equal(t, []any{"serve", "--vault", "/Users/me/notes & ideas"}, entry["args"])
				if servers, ok := before["mcpServers"].(map[string]any); ok {
					if prev, ok := servers["vaultgraph"].(map[string]any); ok {
						for k, v := range prev {
							if k != "command" && k != "args" {
								assert.Equal(t, v, entry[k], "the entry keeps its %s", k)
							}
						}
						servers["vaultgraph"] = entry
					} else {
						servers["vaultgraph"] = entry
					}
				} else {
					before["mcpServers"] = map[string]any{"vaultgraph": entry}
				}
				assert.Equal(t, before, after, "everything else means what it meant")
				assert.Equal(t, keysOf(t, old), keysOf(t, p.New)[:len(keysOf(t, old))], "keys keep their order")

				assertOnlyEntryLinesChange(t, old, p.New)

				_, err = Apply(p, time.Now())
				require.NoError(t, err)
				again, err := PlanServer(c, path, "vaultgraph", server)
				require.NoError(t, err)
				assert.Equal(t, "unchanged", again.Action, "setup again changes nothing")
				assert.Equal(t, p.New, again.New)
				_, err = Apply(again, time.Now())
				require.NoError(t, err)
				final, err := os.ReadFile(path)
				require.NoError(t, err)
				assert.Equal(t, p.New, final, "byte-identical")
			})
		}
	}
}

// entryLines is the range of lines [from, to] (from 0) that the vaultgraph
// entry of data spans, or -1, -1 when it has none. When mcpServers holds
// nothing else, the whole mcpServers member is the entry's; a file on one
// line is all the entry's line.
func entryLines(t *testing.T, data []byte) (from, to int) {
	t.Helper()
	if !bytes.Contains(bytes.TrimSpace(data), []byte("\n")) {
		return 0, 0
	}
	d, err := parseDoc(data)
	require.NoError(t, err)
	root, err := d.object(&d.root, "")
	require.NoError(t, err)
	i, ok := find(root, serversKey)
	if !ok {
		return -1, -1
	}
	servers, err := d.object(&root.Members[i].Value, serversKey)
	require.NoError(t, err)
	m := root.Members[i]
	if j, ok := find(servers, "vaultgraph"); ok && len(servers.Members) > 1 {
		m = servers.Members[j]
	} else if !ok && len(servers.Members) > 0 {
		return -1, -1
	}
	from = bytes.Count(data[:m.Name.StartOffset], []byte("\n"))
	to = bytes.Count(data[:m.Value.EndOffset], []byte("\n"))
	return from, to
}

// assertOnlyEntryLinesChange checks that old and new hold the same lines
// outside the entry, in the same order, but for one line that may have
// gained a comma (the member before a new one).
func assertOnlyEntryLinesChange(t *testing.T, old, new []byte) {
	t.Helper()
	outside := func(data []byte) []string {
		from, to := entryLines(t, data)
		var out []string
		for i, l := range difflib.SplitLines(string(data)) {
			if i < from || i > to {
				out = append(out, l)
			}
		}
		return out
	}
	a, b := outside(old), outside(new)
	require.Equal(t, len(a), len(b), "lines outside the entry:\n%s\n----\n%s", strings.Join(a, ""), strings.Join(b, ""))
	commas := 0
	for k := range a {
		if a[k] == b[k] {
			continue
		}
		commas++
		assert.True(t, gainedComma(a[k], b[k]), "line changed outside the entry: %q -> %q", a[k], b[k])
	}
	assert.LessOrEqual(t, commas, 1, "at most one line gains a comma")
}

// gainedComma reports whether n is o with one comma added.
func gainedComma(o, n string) bool {
	for i := range n {
		if n[i] == ',' && n[:i]+n[i+1:] == o {
			return true
		}
	}
	return false
}

// TestPlainJSONIsNotJSONC: Plan.JSONC is false for plain JSON, and the
// result is plain JSON too.
func TestPlainJSONIsNotJSONC(t *testing.T) {
	c, _ := Lookup("claude-desktop")
	p, err := PlanServer(c, sample(t, "claude_desktop_config.json"), "vaultgraph", server)
	require.NoError(t, err)
	assert.False(t, p.JSONC)
	var v any
	require.NoError(t, json.Unmarshal(p.New, &v), "plain JSON stays plain JSON")
}
