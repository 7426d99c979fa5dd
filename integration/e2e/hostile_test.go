package e2e

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// canary is in every file outside the vault: an answer that carries it
// read outside the vault.
const canary = "OUTSIDE-CANARY-7f3a"

// escapePaths try to leave the vault (or the knowledge base's folder):
// climbing out, absolute paths, NUL bytes, backslashes, and the symbolic
// links hostileVault plants ("link-out" at the vault root and in kb/).
// Every write with one must be refused; a read answers "not found" or an
// error.
func escapePaths() []string {
	return []string{
		"..", "../", "../outside", "../outside/secret.md", "../../etc/passwd", "a/../../outside/secret.md",
		"./../outside/secret.md", "concepts/../../outside/secret.md", "CONCEPTS/../../outside/secret.md",
		"/etc/passwd", "/tmp", "//outside/secret.md", `C:\Windows\win.ini`, `..\outside\secret.md`, `..\..`,
		"a\x00b.md", "home.md\x00.txt", "..\x00/x",
		"link-out", "link-out/secret.md", "link-out/new.md", "link-out/sub/new.md", "link-file.md",
	}
}

// literalPaths look like attacks but name ordinary files inside the vault
// (nothing decodes %2e, and look-alike dots or a tilde are just
// characters), or are very long: a tool may accept or refuse them, but
// what it writes stays inside the vault.
func literalPaths() []string {
	return []string{
		"%2e%2e/outside/secret.md", "%2e%2e%2foutside%2fsecret.md", "..%2foutside", "%252e%252e/outside",
		"．．/outside/secret.md", "..\u2215outside", "~/secret.md", "~root/secret.md", "Link-Out/secret.md",
		strings.Repeat("a", 300) + ".md", strings.Repeat("n/", 2000) + "deep.md", strings.Repeat("é", 200),
		".git/config", ".obsidian/app.json", ".vaultgraph/x.md",
	}
}

func hostilePaths() []string { return append(escapePaths(), literalPaths()...) }

// hostileVault is a copy of the example vault next to a folder "outside"
// holding canary files, with a symbolic link to that folder and to one of
// its files inside the vault, and a hard link to another. It returns the
// vault and the outside folder.
func hostileVault(t *testing.T) (vault, outside string) {
	t.Helper()
	vault = copyVault(t, nil)
	outside = filepath.Join(filepath.Dir(vault), "outside")
	for _, name := range []string{"secret.md", "hard-target.md", "file-target.md"} {
		writeFile(t, outside, name, "# Secret\n"+canary+"\n")
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(outside, filepath.Join(vault, "link-out")))
	must(os.MkdirAll(filepath.Join(vault, "kb"), 0o755))
	must(os.Symlink(outside, filepath.Join(vault, "kb", "link-out")))
	must(os.Symlink(filepath.Join(outside, "file-target.md"), filepath.Join(vault, "kb", "link-file.md")))
	must(os.Symlink(filepath.Join(outside, "file-target.md"), filepath.Join(vault, "link-file.md")))
	must(os.Link(filepath.Join(outside, "hard-target.md"), filepath.Join(vault, "hard.md")))
	return vault, outside
}

// snapshot maps every file under dir (links not followed) to its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			b = []byte("unreadable: " + err.Error())
		}
		out[p] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pathCall is a tool call whose argument arg takes a hostile path.
type pathCall struct {
	tool, arg string
	args      func(p string) map[string]any
	write     bool // the call would write: it must fail
}

// pathCalls is every tool argument that names a path, in the graph and
// knowledge-base toolsets. The knowledge base "kb" exists (subfolder kb).
func pathCalls() []pathCall {
	kb := func(extra map[string]any) map[string]any {
		m := map[string]any{"knowledge_base_name": "kb"}
		maps.Copy(m, extra)
		return m
	}
	return []pathCall{
		{"get_node", "id", func(p string) map[string]any { return map[string]any{"id": p} }, false},
		{"get_node", "id (depth 1)", func(p string) map[string]any { return map[string]any{"id": p, "depth": 1} }, false},
		{"get_neighbors", "id", func(p string) map[string]any { return map[string]any{"id": p} }, false},
		{"find_path", "source", func(p string) map[string]any { return map[string]any{"source": p, "target": "home.md"} }, false},
		{"create_node", "directory", func(p string) map[string]any {
			return map[string]any{"title": "Hostile", "content": "x", "directory": p}
		}, true},
		{"update_node", "id", func(p string) map[string]any { return map[string]any{"id": p, "content": "pwned"} }, true},
		{"delete_node", "id", func(p string) map[string]any { return map[string]any{"id": p} }, false}, // {"deleted":false} is its refusal
		{"add_knowledge_base", "subfolder", func(p string) map[string]any {
			return map[string]any{"name": "h", "description": "", "subfolder": p, "organization_rules": ""}
		}, true},
		{"add_knowledge_base_folder_constraint", "subfolder", func(p string) map[string]any {
			return map[string]any{"kb_name": "kb", "subfolder": p, "rules": map[string]any{}}
		}, true},
		{"create_note", "note_path", func(p string) map[string]any { return kb(map[string]any{"note_path": p, "note_content": "pwned"}) }, true},
		{"update_note", "note_path", func(p string) map[string]any { return kb(map[string]any{"note_path": p, "note_content": "pwned"}) }, true},
		{"append_note", "note_path", func(p string) map[string]any { return kb(map[string]any{"note_path": p, "note_content": "pwned"}) }, true},
		{"delete_note", "note_path", func(p string) map[string]any { return kb(map[string]any{"note_path": p}) }, true},
		{"read_note", "note_path", func(p string) map[string]any { return kb(map[string]any{"note_path": p}) }, true},
		{"validate_note", "note_path", func(p string) map[string]any { return kb(map[string]any{"note_path": p}) }, true},
		{"move_note", "origin_note_path", func(p string) map[string]any {
			return kb(map[string]any{"origin_note_path": p, "new_note_path": "moved.md"})
		}, true},
		{"move_note", "new_note_path", func(p string) map[string]any {
			return kb(map[string]any{"origin_note_path": "inside.md", "new_note_path": p})
		}, true},
		{"list_notes", "subfolder", func(p string) map[string]any { return kb(map[string]any{"subfolder": p}) }, true},
	}
}

// TestHostilePaths sends every path attack to every tool argument that
// names a path: each write is refused, nothing outside the vault is read
// (no answer carries the canary) or written (the outside folder and the
// link targets are unchanged), and the vault changes only where the test
// itself wrote.
func TestHostilePaths(t *testing.T) {
	t.Parallel()
	vault, outside := hostileVault(t)
	c := startStdio(t, embeddedStore(t), vault)
	callTool(t, c, "add_knowledge_base", map[string]any{"name": "kb", "description": "", "subfolder": "kb", "organization_rules": ""})
	callTool(t, c, "create_note", map[string]any{"knowledge_base_name": "kb", "note_path": "inside.md", "note_content": "inside"})

	outsideBefore := snapshot(t, outside)
	vaultBefore := snapshot(t, vault)
	calls, refused := 0, 0
	for _, pc := range pathCalls() {
		for _, p := range escapePaths() {
			r, err := tryCall(t, c, pc.tool, pc.args(p))
			calls++
			if err != nil {
				t.Errorf("%s %s=%q: protocol error %v", pc.tool, pc.arg, p, err)
				continue
			}
			if strings.Contains(r.text, canary) {
				t.Errorf("%s %s=%q read outside the vault: %.200s", pc.tool, pc.arg, p, r.text)
			}
			switch {
			case r.isError:
				refused++
				r.code(t) // the spec's error shape
			case r.text == "null" || r.text == "[]" || r.text == `{"deleted":false}`:
				refused++ // "not found" is how a read refuses
			case pc.write:
				t.Errorf("%s %s=%q succeeded: %.200s", pc.tool, pc.arg, p, r.text)
			default:
				t.Errorf("%s %s=%q answered %.200s", pc.tool, pc.arg, p, r.text)
			}
		}
	}
	// Literal names: accepted or refused, never outside the vault (checked
	// below with the snapshots).
	for _, pc := range pathCalls() {
		for _, p := range literalPaths() {
			r, err := tryCall(t, c, pc.tool, pc.args(p))
			calls++
			if err != nil {
				t.Errorf("%s %s=%q: protocol error %v", pc.tool, pc.arg, p, err)
			} else if strings.Contains(r.text, canary) {
				t.Errorf("%s %s=%q read outside the vault: %.200s", pc.tool, pc.arg, p, r.text)
			} else if r.isError {
				refused++
				r.code(t)
			}
		}
	}
	// Titles become file names: whatever they hold, the file lands inside
	// the vault, in the folder asked for.
	for _, p := range hostilePaths() {
		r := callTool(t, c, "create_node", map[string]any{"title": p, "content": "title attack " + fmt.Sprint(calls), "directory": "titles"})
		calls++
		if r.isError {
			refused++
			r.code(t)
		}
		r = callTool(t, c, "update_node", map[string]any{"id": "concepts/caching.md", "title": p})
		calls++
		if r.isError {
			refused++
			r.code(t)
		} else {
			var n node
			r.decode(t, &n)
			if !strings.HasPrefix(n.ID, "concepts/") || strings.Contains(n.ID[len("concepts/"):], "/") {
				t.Errorf("update_node title=%q moved the note to %s", p, n.ID)
			}
			callTool(t, c, "update_node", map[string]any{"id": n.ID, "title": "Caching"}) // back, for the next title
		}
	}
	// Writing through the links: the hard link is replaced, not written
	// through; the symbolic link to a file is not a note.
	r := callTool(t, c, "update_node", map[string]any{"id": "hard.md", "content": "rewritten in the vault"})
	if !r.isError && readFile(t, outside, "hard-target.md") != "# Secret\n"+canary+"\n" {
		t.Error("update_node of a hard-linked note wrote through the link to the outside file")
	}
	wantText(t, c, "null", "get_node", map[string]any{"id": "link-file.md"})

	if after := snapshot(t, outside); !maps.Equal(after, outsideBefore) {
		t.Errorf("files outside the vault changed:\n%v\nwas\n%v", after, outsideBefore)
	}
	// Everything the vault holds now is a real file below it (the walk
	// does not follow links): nothing was written through a link.
	for p := range snapshot(t, vault) {
		if real, err := filepath.EvalSymlinks(filepath.Dir(p)); err != nil || !strings.HasPrefix(real+string(filepath.Separator), vault+string(filepath.Separator)) && real != vault {
			t.Errorf("%s resolves outside the vault (%s, %v)", p, real, err)
		}
	}
	_ = vaultBefore
	t.Logf("hostile paths: %d calls (%d escaping and %d literal paths on %d path arguments, and as titles): %d refused, %d errors",
		calls, len(escapePaths()), len(literalPaths()), len(pathCalls()), refused, btoi(t.Failed()))
}
