package edit_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/tools/edit"
	"github.com/vaultgraph/vaultgraph/tools/graph"
)

// fsWrite writes a note as an editor outside vaultgraph does, and dates
// it now: the kernel dates files by a coarse clock (a few milliseconds
// behind), which would order a file written right after a tool's write
// before it.
func (f *fixture) fsWrite(t *testing.T, rel, content string) {
	t.Helper()
	writeFile(t, f.root, rel, content)
	now := time.Now()
	if err := os.Chtimes(filepath.Join(f.root, filepath.FromSlash(rel)), now, now); err != nil {
		t.Fatal(err)
	}
}

// rescan makes the mirror see what changed on disk, as the watcher does.
func (f *fixture) rescan(t *testing.T) {
	t.Helper()
	if _, err := f.mirror.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) recent(t *testing.T, args map[string]any) edit.RecentChangesResponse {
	t.Helper()
	var out edit.RecentChangesResponse
	ok(t, f.client, edit.RecentChangesName, args, &out)
	return out
}

func line(c edit.ChangeResponse) string {
	s := c.Kind + " " + c.Path
	if c.OldPath != "" {
		s = c.Kind + " " + c.OldPath + " -> " + c.Path
	}
	return s
}

// TestRecentChangesListsExactlyTheScriptedSequence edits, renames and
// deletes notes through the tools and through the file system, and
// expects recent_changes to list exactly those changes, newest first, in
// pages.
func TestRecentChangesListsExactlyTheScriptedSequence(t *testing.T) {
	f := newFixture(t, map[string]string{
		"a.md": "# A\n", "b.md": "# B\nbee\n", "c.md": "# C\nsea\n", "d.md": "# D\n",
	})
	c := f.client
	if got := f.recent(t, nil); len(got.Changes) != 0 {
		t.Fatalf("the first sync logged %v", got.Changes)
	}

	ok(t, c, edit.EditNoteName, map[string]any{"id": "a.md", "operation": "append", "content": "more"}, nil) // 6 bytes more
	ok(t, c, graph.CreateNodeName, map[string]any{"title": "New", "content": "fresh"}, nil)
	f.fsWrite(t, "b.md", "# B\n")
	f.rescan(t)
	if err := os.MkdirAll(filepath.Join(f.root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(f.root, "c.md"), filepath.Join(f.root, "sub", "c2.md")); err != nil {
		t.Fatal(err)
	}
	f.rescan(t)
	ok(t, c, graph.UpdateNodeName, map[string]any{"id": "d.md", "title": "D2"}, nil)
	if err := os.Remove(filepath.Join(f.root, "a.md")); err != nil {
		t.Fatal(err)
	}
	f.rescan(t)
	ok(t, c, graph.DeleteNodeName, map[string]any{"id": "new.md"}, nil)
	f.fsWrite(t, "e.md", "# E\n")
	// No rescan: a tool's write brings the index up to date first when
	// no watcher runs, so the next call's write logs e.md.
	ok(t, c, edit.EditNoteName, map[string]any{"id": "b.md", "operation": "append", "content": "bee"}, nil)

	want := []string{
		"modified b.md",
		"created e.md",
		"deleted New.md",
		"deleted a.md",
		"renamed d.md -> D2.md", // the file name is the title
		"renamed c.md -> sub/c2.md",
		"modified b.md",
		"created New.md",
		"modified a.md",
	}
	all := f.recent(t, map[string]any{"limit": 100})
	var got []string
	for _, ch := range all.Changes {
		got = append(got, line(ch))
	}
	if !slices.Equal(got, want) || all.NextCursor != "" {
		t.Fatalf("recent_changes:\n got %q\nwant %q (next %q)", got, want, all.NextCursor)
	}
	// The one-line summaries, in the order of want ("" not checked: a
	// created note's size depends on what create_node adds).
	summaries := []string{
		"modified: +4 bytes (4 → 8)",
		"created, 4 bytes",
		"",
		"deleted, was 9 bytes",
		"renamed from d.md",
		"renamed from c.md",
		"modified: -4 bytes (8 → 4)",
		"",
		"modified: +5 bytes (4 → 9)",
	}
	for i, ch := range all.Changes {
		if summaries[i] != "" && ch.Summary != summaries[i] {
			t.Errorf("%s: summary %q, want %q", line(ch), ch.Summary, summaries[i])
		}
		if ch.Title == "" || ch.ID == "" {
			t.Errorf("%s: no title or ID: %+v", line(ch), ch)
		}
		if _, err := time.Parse(time.RFC3339, ch.At); err != nil {
			t.Errorf("%s: at %q: %v", line(ch), ch.At, err)
		}
	}

	// Pages of 4 give the same list.
	var paged []string
	args := map[string]any{"limit": 4}
	for range 5 {
		page := f.recent(t, args)
		for _, ch := range page.Changes {
			paged = append(paged, line(ch))
		}
		if page.NextCursor == "" {
			break
		}
		args["cursor"] = page.NextCursor
	}
	if !slices.Equal(paged, want) {
		t.Errorf("paged:\n got %q\nwant %q", paged, want)
	}
	if got := f.recent(t, map[string]any{"since": "1h"}); len(got.Changes) != len(want) {
		t.Errorf("since 1h: %d changes", len(got.Changes))
	}
	if got := f.recent(t, map[string]any{"since": time.Now().Add(time.Minute).UTC().Format(time.RFC3339)}); len(got.Changes) != 0 {
		t.Errorf("since a minute ahead: %v", got.Changes)
	}
	for _, args := range []map[string]any{{"since": "yesterday"}, {"cursor": "page2"}, {"limit": 0}} {
		if e := fail(t, c, edit.RecentChangesName, args); e.Code != edit.CodeInvalidParams {
			t.Errorf("%v: %+v", args, e)
		}
	}
}
