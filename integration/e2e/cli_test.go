package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// cliArgs is a one-shot command's arguments on vault with st.
func cliArgs(st store, vault string, args ...string) []string {
	return append(append(args, "--vault", vault), st.args...)
}

// TestCallPrintsTheResult runs "vaultgraph call" on both stores: the tool's
// answer JSON on stdout and exit 0, an error result printed and exit 1,
// arguments that are not a JSON object a usage error (exit 2) with nothing
// on stdout.
func TestCallPrintsTheResult(t *testing.T) {
	t.Parallel()
	forEachStoreSharing(t, func(t *testing.T, st store) {
		vault := copyVault(t, nil)
		env := processEnv(t, st)

		code, out, errOut := runProc(t, env, cliArgs(st, vault, "call", "get_node", `{"id":"Home.md"}`)...)
		if code != 0 {
			t.Fatalf("call get_node: exit %d; stderr:\n%s", code, errOut)
		}
		var n node
		if err := json.Unmarshal([]byte(out), &n); err != nil || n.ID != "home.md" || n.Title != "Home" {
			t.Fatalf("call get_node printed %.300q (%v)", out, err)
		}

		code, out, _ = runProc(t, env, cliArgs(st, vault, "call", "get_node", `{"id":"home.md","depth":7}`)...)
		if code != 1 {
			t.Errorf("call with a tool error: exit %d, want 1", code)
		}
		if got := (reply{isError: true, text: strings.TrimSpace(out)}).code(t); got != invalidParams {
			t.Errorf("call with a tool error printed code %s, want %s", got, invalidParams)
		}

		code, out, errOut = runProc(t, env, cliArgs(st, vault, "call", "get_node", `[1,2]`)...)
		if code != 2 || out != "" || !strings.Contains(errOut, "not a JSON object") {
			t.Errorf("call with non-object arguments: exit %d, stdout %q, stderr %q", code, out, errOut)
		}

		code, _, errOut = runProc(t, env, cliArgs(st, vault, "call", "no_such_tool", `{}`)...)
		if code == 0 {
			t.Errorf("call of an unknown tool: exit 0; stderr %q", errOut)
		}

		// A write through call lands on disk and in the store.
		code, out, errOut = runProc(t, env, cliArgs(st, vault, "call", "create_node", `{"title":"From Call","content":"made by call"}`)...)
		if code != 0 || !strings.Contains(out, `"id":"from call.md"`) {
			t.Fatalf("call create_node: exit %d, stdout %.300q; stderr:\n%s", code, out, errOut)
		}
		if !strings.Contains(readFile(t, vault, "From Call.md"), "made by call") {
			t.Error("call create_node did not write the file")
		}
	})
}

// TestSyncMirrorsTheVault runs "vaultgraph sync" on both stores: it exits 0,
// and what it wrote is what a later process reads without syncing changes
// of its own (the vault did not change in between).
func TestSyncMirrorsTheVault(t *testing.T) {
	t.Parallel()
	forEachStoreSharing(t, func(t *testing.T, st store) {
		vault := copyVault(t, map[string]string{"synced/Fresh Note.md": "---\ntags: [fresh]\n---\nSee [[Home]]."})
		env := processEnv(t, st)
		code, out, errOut := runProc(t, env, cliArgs(st, vault, "sync")...)
		if code != 0 {
			t.Fatalf("sync: exit %d; stderr:\n%s", code, errOut)
		}
		if out != "" {
			t.Errorf("sync wrote to stdout: %q", out)
		}
		done, ok := findLog(errOut, "vault: sync done")
		if !ok {
			t.Fatalf("sync logged no summary; stderr:\n%s", errOut)
		}
		t.Logf("sync summary: %v", done)

		// A second process on the same store finds the note. On Neo4j its
		// own startup sync writes nothing; the embedded store keeps notes in
		// memory only (memstore.Open starts empty), so it writes them all.
		code, out, errOut = runProc(t, env, cliArgs(st, vault, "call", "search_by_tags", `{"tags":["fresh"]}`)...)
		if code != 0 || !strings.Contains(out, `"id":"synced/fresh note.md"`) {
			t.Fatalf("call after sync: exit %d, stdout %.300q; stderr:\n%s", code, out, errOut)
		}
		if again, ok := findLog(errOut, "vault: sync done"); ok && st.neo4j != nil {
			if w, _ := again["written"].(float64); w != 0 {
				t.Errorf("the sync after sync wrote %v notes, want 0: %v", w, again)
			}
		}

		// An unreadable vault is an error, exit non-zero.
		code, _, errOut = runProc(t, env, cliArgs(st, vault+"/no-such-folder", "sync")...)
		if code == 0 {
			t.Errorf("sync of a missing vault: exit 0; stderr:\n%s", errOut)
		}
	})
}
