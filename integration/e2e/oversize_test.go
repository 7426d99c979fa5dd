package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// peakRSS returns the process's peak resident memory in MiB (VmHWM).
func peakRSS(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return kb / 1024
		}
	}
	return -1
}

// TestOversizedArguments: a 50 MB note content and 10,000 tags get a
// clear error over stdio (the transport's 16 MiB message limit, then the
// tools' 8 MiB argument limit) and HTTP (the body limit, 413), nothing is
// written, and the server stays up with bounded memory.
func TestOversizedArguments(t *testing.T) {
	t.Parallel()
	vault := copyVault(t, nil)
	st := embeddedStore(t)
	s := startRawStdio(t, processEnv(t, st), append([]string{"serve", "--vault", vault}, st.args...)...)
	s.initialize(t)
	before := listFiles(t, vault)
	home := readFile(t, vault, "Home.md")
	huge := strings.Repeat("x", 50<<20)
	tags := make([]string, 10_000)
	for i := range tags {
		tags[i] = fmt.Sprintf("t%d", i)
	}
	cases := []struct {
		name, tool, wantCode, wantMsg string
		args                          map[string]any
	}{
		{"12 MB content", "create_node", invalidParams, "over the limit of 8,388,608 bytes", map[string]any{"title": "Huge", "content": huge[:12<<20]}},
		{"9 MB update", "update_node", invalidParams, "over the limit of 8,388,608 bytes", map[string]any{"id": "home.md", "content": huge[:9<<20]}},
		{"10k tags", "create_node", invalidParams, "tags: 10,000 items, over the limit of 1,000", map[string]any{"title": "Tagged", "content": "x", "tags": tags}},
		{"10k tags to search", "search_by_tags", invalidParams, "tags: 10,000 items", map[string]any{"tags": tags}},
		{"9 MB note", "create_note", "", "over the limit of 8,388,608 bytes", map[string]any{"knowledge_base_name": "kb", "note_path": "huge.md", "note_content": huge[:9<<20]}},
	}
	// A 50 MB message is over the stdio transport's 16 MiB limit: skipped
	// unread and answered with a JSON-RPC error for its id.
	id := s.send(t, "tools/call", map[string]any{"name": "create_node", "arguments": map[string]any{"title": "Huge", "content": huge}})
	if msg := s.wait(t, id); msg["error"] == nil || !strings.Contains(string(msg["error"]), "request too large") || !strings.Contains(string(msg["error"]), "-32600") {
		t.Errorf("50 MB over stdio: %.300v", msg)
	}
	for _, tc := range cases {
		r := s.call(t, tc.tool, tc.args)
		code := r.code(t)
		if (tc.wantCode != "" && code != tc.wantCode) || !strings.Contains(r.text, tc.wantMsg) {
			t.Errorf("%s over stdio: %.300s, want %s %q", tc.name, r.text, tc.wantCode, tc.wantMsg)
		}
	}
	if after := listFiles(t, vault); !slices.Equal(after, before) {
		t.Errorf("refused oversized calls changed the vault: %v", after)
	}
	if readFile(t, vault, "Home.md") != home {
		t.Error("home.md changed")
	}
	if n := s.call(t, "get_node", map[string]any{"id": "home.md"}); n.isError {
		t.Errorf("the server does not answer after the oversized calls: %s", n.text)
	}
	stdioRSS := peakRSS(t, s.cmd.Process.Pid)

	h := startHTTP(t, embeddedStore(t), vault, "127.0.0.1:0")
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "create_node", "arguments": map[string]any{"title": "Huge", "content": huge}}})
	code, resp := rawPost(t, h.url(), rwToken, string(body))
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(resp, "too large") {
		t.Errorf("50 MB over HTTP: %d %.200q, want 413", code, resp)
	}
	c := httpClient(t, h.url(), rwToken)
	initialize(t, c)
	wantCode(t, c, invalidParams, "create_node", map[string]any{"title": "Tagged", "content": "x", "tags": tags})
	if after := listFiles(t, vault); !slices.Equal(after, before) {
		t.Errorf("refused oversized calls changed the vault: %v", after)
	}
	t.Logf("oversized arguments: %d refused over stdio, 2 over HTTP; peak RSS %d MiB (stdio, after a 50 MB line), %d MiB (HTTP)",
		len(cases)+1, stdioRSS, peakRSS(t, h.cmd.Process.Pid))
}
