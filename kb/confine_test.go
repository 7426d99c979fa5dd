package kb_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vaultgraph/vaultgraph/kb"
)

// swapper swaps the vault folder dir for a symbolic link to target and
// back, as fast as it can, until stop is called; it returns how many
// swaps it made.
func swapper(t *testing.T, dir, target string) (stop func() int64) {
	t.Helper()
	var done atomic.Bool
	var n atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for !done.Load() {
			if os.Rename(dir, dir+".real") != nil {
				runtime.Gosched()
				continue
			}
			_ = os.Symlink(target, dir)
			runtime.Gosched()
			_ = os.Remove(dir)
			if os.Rename(dir+".real", dir) != nil {
				// The code under test made the folder again while it was
				// missing (which is fine: inside the vault).
				_ = os.RemoveAll(dir)
				_ = os.Rename(dir+".real", dir)
			}
			n.Add(1)
		}
	})
	return func() int64 {
		done.Store(true)
		wg.Wait()
		return n.Load()
	}
}

// filesUnder lists every file and folder below dir, vault-relative.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// TestMetadataAndFoldersSwappedForLinksLeakNothing swaps, at full speed,
// the knowledge base's subfolder and its folder_constraints folder for
// symbolic links to folders outside the vault while the knowledge base
// operations that read, list, write and create folders run (issue 21): no
// file or folder may appear outside, and no listing may name an outside
// file. Checking each path and then using it by name lost this race.
func TestMetadataAndFoldersSwappedForLinksLeakNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	e := newEnv(t, map[string]string{"notes/sub/real.md": "real"})
	addKB(t, e, "k", "notes")
	addConstraint(t, e, "k", "notes/sub", `{"filename":{"pattern":"\\.md$"}}`)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "CANARY.md"), "outside")
	outsideMeta := t.TempDir()
	stopSub := swapper(t, filepath.Join(e.root, "notes", "sub"), outside)
	stopMeta := swapper(t, filepath.Join(e.root, ".llm_bridges/knowledge_base/k/folder_constraints"), outsideMeta)

	ctx := t.Context()
	rules, _ := kb.ParseRules([]byte(`{"filename":{"pattern":"md$"}}`))
	var leaks []string
	for i := range 60 {
		if l, err := e.svc.ListNotes(ctx, "k", "", 0, 0); err == nil {
			for _, p := range l.Paths {
				if strings.Contains(p, "CANARY") {
					leaks = append(leaks, p)
				}
			}
		}
		if l, err := e.svc.ListNotes(ctx, "k", "sub", 0, 0); err == nil && strings.Contains(strings.Join(l.Paths, ","), "CANARY") {
			leaks = append(leaks, "sub: "+strings.Join(l.Paths, ","))
		}
		_, _ = e.svc.AddFolderConstraint(ctx, "k", "notes/sub", rules)
		sub := "notes/sub/deep" + string(rune('a'+i%26))
		if i%2 == 1 {
			sub = "notes"
		}
		_, _, _ = e.svc.UpdateKnowledgeBase(ctx, "k", kb.KnowledgeBaseUpdate{Subfolder: &sub})
		_, _ = e.svc.ValidateNote(ctx, "k", "sub/real.md")
	}
	swaps := stopSub() + stopMeta()
	t.Logf("%d swaps", swaps)
	if len(leaks) > 0 {
		t.Errorf("listings named files outside the vault: %v", leaks[:min(5, len(leaks))])
	}
	if got := filesUnder(t, outside); len(got) != 1 {
		t.Errorf("written outside the vault: %v", got)
	}
	if got := filesUnder(t, outsideMeta); len(got) != 0 {
		t.Errorf("metadata written outside the vault: %v", got)
	}
}

// Names kb creates follow core.CheckNewName, the graph toolset's rule
// (issue 21): reserved device names, text-direction characters; and two
// names that look the same (NFC and NFD) are one name.
func TestNamesFollowTheOneRule(t *testing.T) {
	e := newEnv(t, map[string]string{"notes/caf\u00e9.md": "composed"})
	addKB(t, e, "k", "notes")
	ctx := t.Context()
	for _, name := range []string{"CON", "nul", "com1.txt", "a\u202eb", "lpt9", "trailing."} {
		_, err := e.svc.AddKnowledgeBase(ctx, kb.NewKnowledgeBase{Name: name, Subfolder: "x"})
		wantCode(t, err, kb.CodeSchemaValidationFailed)
	}
	for _, sub := range []string{"CON", "x/nul", "a\u202eb/c", "x/aux.md"} {
		_, err := e.svc.AddKnowledgeBase(ctx, kb.NewKnowledgeBase{Name: "new", Subfolder: sub})
		wantCode(t, err, kb.CodeInvalidNotePath)
	}
	for _, p := range []string{"CON.md", "nul/x.md", "a\u202eb.md", "Aux/x.md", "x/COM1.md"} {
		_, err := e.svc.CreateNote(ctx, "k", p, "x")
		wantCode(t, err, kb.CodeInvalidNotePath)
	}
	_, err := e.svc.MoveNote(ctx, "k", "caf\u00e9.md", "prn.md")
	wantCode(t, err, kb.CodeInvalidNotePath)
	sub := "nul"
	_, _, err = e.svc.UpdateKnowledgeBase(ctx, "k", kb.KnowledgeBaseUpdate{Subfolder: &sub})
	wantCode(t, err, kb.CodeInvalidNotePath)
	rules, _ := kb.ParseRules([]byte(`{}`))
	_, err = e.svc.AddFolderConstraint(ctx, "k", "notes/CON", rules)
	wantCode(t, err, kb.CodeInvalidNotePath)

	// NFD "café.md" is the note there in NFC.
	_, err = e.svc.CreateNote(ctx, "k", "cafe\u0301.md", "decomposed")
	wantCode(t, err, kb.CodeNoteAlreadyExists)
	p, err := e.svc.ReadNote(ctx, "k", "cafe\u0301.md", 0, 100)
	if err != nil || p.Content != "composed" || p.Path != "notes/caf\u00e9.md" {
		t.Fatalf("read in NFD = %+v, %v", p, err)
	}
	// A new name is created in NFC.
	r, err := e.svc.CreateNote(ctx, "k", "the\u0301.md", "x")
	if err != nil || r.Note.Path != "notes/th\u00e9.md" {
		t.Fatalf("create in NFD = %+v, %v", r, err)
	}
	if _, ok := e.read(t, "notes/th\u00e9.md"); !ok {
		t.Fatal("the note is not stored in NFC")
	}
	// Knowledge base names: NFD of an existing NFC name is that name.
	addKB(t, e, "r\u00e9sum\u00e9", "cv")
	_, err = e.svc.AddKnowledgeBase(ctx, kb.NewKnowledgeBase{Name: "re\u0301sume\u0301", Subfolder: "other"})
	wantCode(t, err, kb.CodeKnowledgeBaseAlreadyExists)
	if _, err := e.svc.ListNotes(ctx, "re\u0301sume\u0301", "", 0, 0); err != nil {
		t.Fatalf("a knowledge base named in NFD is found: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(e.root, "notes")); len(entries) != 2 {
		t.Fatalf("notes/ holds %v", entries)
	}
}

// Every kb tool that takes a note path accepts the graph's ID form: the
// exact path first, else the one note matching it in letter case (issue
// 22), and answers with the path as it is on disk; validation sees the
// name on disk.
func TestNotePathsInTheGraphsIDForm(t *testing.T) {
	e := newEnv(t, map[string]string{
		"Plugins/Canvas.md": "---\nstatus: draft\n---\ncanvas", "Plugins/Archive/old.md": "old",
		"Plugins/Home.md": "[[Canvas]]",
	})
	addKB(t, e, "k", "Plugins")
	addConstraint(t, e, "k", "Plugins", `{"filename":{"pattern":"^[A-Z]"}}`)
	ctx := t.Context()

	p, err := e.svc.ReadNote(ctx, "k", "canvas.md", 0, 100)
	if err != nil || p.Path != "Plugins/Canvas.md" {
		t.Fatalf("read = %+v, %v", p, err)
	}
	v, err := e.svc.ValidateNote(ctx, "k", "canvas.md")
	if err != nil || !v.Validation.Passed || v.Note.Path != "Plugins/Canvas.md" {
		t.Fatalf("validate = %+v, %v", v, err)
	}
	c, err := e.svc.UpdateNote(ctx, "k", "CANVAS.md", "new", p.Version)
	if err != nil || c.Updated.Path != "Plugins/Canvas.md" {
		t.Fatalf("update = %+v, %v", c, err)
	}
	a, err := e.svc.AppendNote(ctx, "k", "canvas.md", "more")
	if err != nil || a.Updated.Path != "Plugins/Canvas.md" {
		t.Fatalf("append = %+v, %v", a, err)
	}
	if got, _ := e.read(t, "Plugins/Canvas.md"); got != "new\nmore" {
		t.Fatalf("file = %q", got)
	}
	// A folder in another letter case is the folder on disk.
	r, err := e.svc.CreateNote(ctx, "k", "archive/New.md", "x")
	if err != nil || r.Note.Path != "Plugins/Archive/New.md" {
		t.Fatalf("create = %+v, %v", r, err)
	}
	m, err := e.svc.MoveNote(ctx, "k", "canvas.md", "archive/Canvas.md")
	if err != nil || m.From != "Plugins/Canvas.md" || m.To != "Plugins/Archive/Canvas.md" {
		t.Fatalf("move = %+v, %v", m, err)
	}
	if _, ok := e.read(t, "Plugins/archive/Canvas.md"); ok {
		t.Fatal("a twin folder was made")
	}
	// Validation sees the name on disk: "old.md" fails ^[A-Z] whatever the
	// caller wrote.
	v, err = e.svc.ValidateNote(ctx, "k", "ARCHIVE/OLD.md")
	if err != nil || v.Validation.Passed || v.Note.Path != "Plugins/Archive/old.md" {
		t.Fatalf("validate old = %+v, %v", v, err)
	}
	// A case-only rename of the note itself is a move.
	m, err = e.svc.MoveNote(ctx, "k", "archive/old.md", "archive/Old.md")
	if err != nil || m.To != "Plugins/Archive/Old.md" {
		t.Fatalf("case rename = %+v, %v", m, err)
	}
	kbDel, deleted, err := e.svc.DeleteNote(ctx, "k", "archive/new.md")
	if err != nil || kbDel == nil || deleted != "Plugins/Archive/New.md" {
		t.Fatalf("delete = %q, %v", deleted, err)
	}
	// Two notes matching one path in letter case: an error naming both.
	writeFile(t, filepath.Join(e.root, "Plugins/Twin.md"), "1")
	writeFile(t, filepath.Join(e.root, "Plugins/twin.md"), "2")
	e2 := startEnv(t, e.root)
	_, err = e2.svc.ReadNote(ctx, "k", "TWIN.md", 0, 10)
	if ke := wantCode(t, err, kb.CodeInvalidNotePath); !strings.Contains(ke.Message, "Plugins/Twin.md, Plugins/twin.md") {
		t.Fatalf("message = %s", ke.Message)
	}
	if p, err := e2.svc.ReadNote(ctx, "k", "twin.md", 0, 10); err != nil || p.Content != "2" {
		t.Fatalf("the exact path wins: %+v, %v", p, err)
	}
}

// A path through an existing file is the caller's mistake, named
// (issue 22), never a provider error.
func TestPathsThroughAFileNameTheFile(t *testing.T) {
	e := newEnv(t, map[string]string{"notes/Canvas.md": "c", "Home.md": "h"})
	addKB(t, e, "k", "notes")
	ctx := t.Context()
	for _, call := range []func() error{
		func() error { _, err := e.svc.CreateNote(ctx, "k", "Canvas.md/x.md", "x"); return err },
		func() error { _, err := e.svc.ReadNote(ctx, "k", "Canvas.md/x.md", 0, 10); return err },
		func() error { _, err := e.svc.UpdateNote(ctx, "k", "Canvas.md/x.md", "x", ""); return err },
		func() error { _, _, err := e.svc.DeleteNote(ctx, "k", "canvas.md/x.md"); return err },
		func() error { _, err := e.svc.MoveNote(ctx, "k", "Canvas.md", "Canvas.md/x.md"); return err },
		func() error { _, err := e.svc.ListNotes(ctx, "k", "Canvas.md", 0, 0); return err },
	} {
		err := call()
		if ke := wantCode(t, err, kb.CodeInvalidNotePath); !strings.Contains(ke.Message, `"notes/Canvas.md" is a file`) {
			t.Errorf("message = %s", ke.Message)
		}
	}
	for _, sub := range []string{"Home.md", "Home.md/sub"} {
		_, err := e.svc.AddKnowledgeBase(ctx, kb.NewKnowledgeBase{Name: "h", Subfolder: sub})
		if ke := wantCode(t, err, kb.CodeInvalidNotePath); !strings.Contains(ke.Message, `"Home.md" is a file`) {
			t.Errorf("message = %s", ke.Message)
		}
	}
	list, err := e.svc.ListKnowledgeBases(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("a refused knowledge base was registered: %+v", list)
	}
	if _, err := e.svc.AddKnowledgeBase(ctx, kb.NewKnowledgeBase{Name: "h", Subfolder: "home"}); err != nil {
		t.Fatalf("retry: %v", err)
	}
}

// add_knowledge_base is all or nothing (issue 22): a failure after it
// made folders removes them and registers nothing; a retry works.
func TestAddKnowledgeBaseIsAllOrNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	e := newEnv(t, nil)
	addKB(t, e, "first", "first")
	// The new knowledge base's own folder is a link: its folders cannot be
	// made, after the subfolder was.
	link := filepath.Join(e.root, ".llm_bridges/knowledge_base/k")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.AddKnowledgeBase(t.Context(), kb.NewKnowledgeBase{Name: "k", Subfolder: "fresh/deep"})
	if err == nil {
		t.Fatal("added through a link")
	}
	if _, err := os.Lstat(filepath.Join(e.root, "fresh")); !os.IsNotExist(err) {
		t.Fatalf("the subfolder made for the failed call stays: %v", err)
	}
	if list, _ := e.svc.ListKnowledgeBases(t.Context()); len(list) != 1 {
		t.Fatalf("registered: %+v", list)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	k, err := e.svc.AddKnowledgeBase(t.Context(), kb.NewKnowledgeBase{Name: "k", Subfolder: "fresh/deep"})
	if err != nil || k.Subfolder != "fresh/deep" {
		t.Fatalf("retry = %+v, %v", k, err)
	}
	if _, ok := e.read(t, ".llm_bridges/knowledge_base/k/meta.md"); !ok {
		t.Fatal("no meta.md")
	}
}
