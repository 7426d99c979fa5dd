package core_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/vault"
)

const project = "test"

// note builds a note linking to the given IDs (an ID starting with "?" is
// an unresolved link with that key).
func note(id, title, content string, tags []string, links ...string) core.Note {
	n := core.Note{ID: id, Title: title, Path: id, Content: content, Tags: tags}
	for _, l := range links {
		if key, ok := strings.CutPrefix(l, "?"); ok {
			n.Links = append(n.Links, core.Link{Raw: "[[" + key + "]]", Key: key})
			continue
		}
		n.Links = append(n.Links, core.Link{Raw: "[[" + l + "]]", Key: strings.TrimSuffix(l, ".md"), Target: l})
	}
	return n
}

// countingReader counts ResolveTitles and NoteContext calls, to check that
// an answer resolves all its link titles in one batch and that get_node
// asks the store once.
type countingReader struct {
	core.GraphReader
	resolveCalls atomic.Int64
	contextCalls atomic.Int64
}

func (c *countingReader) NoteContext(ctx context.Context, p, id string, q core.ContextQuery) (*core.NoteContext, error) {
	c.contextCalls.Add(1)
	return c.GraphReader.NoteContext(ctx, p, id, q)
}

func (c *countingReader) ResolveTitles(ctx context.Context, p string, ids []string) (map[string]string, error) {
	c.resolveCalls.Add(1)
	return c.GraphReader.ResolveTitles(ctx, p, ids)
}

// recordingWriter passes writes to the vault's writer and records the IDs
// the service asked for.
type recordingWriter struct {
	core.NoteWriter
	updated []string
	deleted []string
}

func (w *recordingWriter) Update(ctx context.Context, id string, u core.NoteUpdate) (*core.Note, *core.RenameReport, error) {
	w.updated = append(w.updated, id)
	return w.NoteWriter.Update(ctx, id, u)
}

func (w *recordingWriter) Delete(ctx context.Context, id string) (bool, error) {
	w.deleted = append(w.deleted, id)
	return w.NoteWriter.Delete(ctx, id)
}

type fakeSearcher []core.ScoredID

func (f fakeSearcher) Search(_ context.Context, _ string, limit int) ([]core.ScoredID, error) {
	if len(f) > limit {
		return f[:limit], nil
	}
	return f, nil
}

type fixture struct {
	store  *memstore.Store
	reader *countingReader
	svc    *core.GraphService
}

func newFixture(t *testing.T, notes []core.Note, opts ...core.GraphOption) *fixture {
	t.Helper()
	store := memstore.New()
	t.Cleanup(func() { _ = store.Close(context.Background()) })
	if len(notes) > 0 {
		if err := store.UpsertNotes(t.Context(), project, notes); err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{store: store, reader: &countingReader{GraphReader: store}}
	f.svc = core.NewGraphService(project, f.reader, nil, opts...)
	return f
}

func isInvalid(err error) bool { return errors.Is(err, core.ErrInvalidArgument) }

func TestTruncateContent(t *testing.T) {
	const limit = 5
	cases := []struct {
		name, in, want string
	}{
		{"shorter than the limit", "abc", "abc"},
		{"exactly the limit is kept whole", "abcde", "abcde"},
		{"one over the limit is cut", "abcdef", "abcde" + core.TruncationSuffix},
		{"multi-byte characters count once", "ééééé", "ééééé"},
		{"multi-byte cut keeps whole characters", "éééééé", "ééééé" + core.TruncationSuffix},
		{"emoji count as one character", "😀😀😀😀😀😀", "😀😀😀😀😀" + core.TruncationSuffix},
		{"an invalid byte counts as one character", "ab\xffcde", "ab\xffcd" + core.TruncationSuffix},
		{"empty", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := core.TruncateContent(c.in, limit)
			if got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			if utf8.ValidString(c.in) && !utf8.ValidString(got) {
				t.Fatal("the cut split a UTF-8 sequence")
			}
		})
	}
	if got := core.TruncateContent("abc", 0); got != core.TruncationSuffix {
		t.Fatalf("limit 0: %q", got)
	}
}

func TestGetNode(t *testing.T) {
	long := strings.Repeat("é", core.PrimaryContentLimit)
	notes := []core.Note{
		note("notes/graphcore.md", "GraphCore", "The orchestration hub", []string{"architecture", "core"},
			"notes/store.md", "notes/node.md", "notes/store.md", "?missing"),
		note("notes/store.md", "StoreProvider", strings.Repeat("s", 300), []string{"provider"}, "notes/node.md"),
		note("notes/node.md", "Node", "", nil),
		note("notes/index.md", "Index", "", nil, "notes/graphcore.md"),
		note("notes/exact.md", "Exact", long, nil),
		note("notes/over.md", "Over", long+"x", nil),
	}
	f := newFixture(t, notes)
	ctx := t.Context()

	t.Run("missing node is nil, not an error", func(t *testing.T) {
		got, err := f.svc.GetNode(ctx, "notes/nope.md", 1)
		if err != nil || got != nil {
			t.Fatalf("got %+v, %v", got, err)
		}
	})

	t.Run("depth 0 is one store call, drops unresolved and repeated links", func(t *testing.T) {
		f.reader.resolveCalls.Store(0)
		f.reader.contextCalls.Store(0)
		got, err := f.svc.GetNode(ctx, "notes/graphcore.md", 0)
		if err != nil {
			t.Fatal(err)
		}
		want := []core.LinkInfo{{ID: "notes/store.md", Title: "StoreProvider"}, {ID: "notes/node.md", Title: "Node"}}
		if fmt.Sprint(got.Node.Links) != fmt.Sprint(want) || got.Context != nil {
			t.Fatalf("got %+v", got)
		}
		if r, c := f.reader.resolveCalls.Load(), f.reader.contextCalls.Load(); r != 0 || c != 1 {
			t.Fatalf("ResolveTitles called %d times, NoteContext %d, want 0 and 1", r, c)
		}
	})

	t.Run("a node without tags or links has empty lists", func(t *testing.T) {
		got, err := f.svc.GetNode(ctx, "notes/node.md", 0)
		if err != nil || got.Node.Tags == nil || got.Node.Links == nil {
			t.Fatalf("got %+v, %v", got, err)
		}
	})

	t.Run("ID matches in any letter case and without .md", func(t *testing.T) {
		for _, id := range []string{"Notes/GraphCore.md", "notes/graphcore", " ./NOTES/GRAPHCORE "} {
			got, err := f.svc.GetNode(ctx, id, 0)
			if err != nil || got == nil || got.Node.ID != "notes/graphcore.md" {
				t.Fatalf("%q: got %+v, %v", id, got, err)
			}
		}
	})

	t.Run("primary content: exactly 10000 characters kept, 10001 cut", func(t *testing.T) {
		exact, err := f.svc.GetNode(ctx, "notes/exact.md", 0)
		if err != nil || exact.Node.Content != long {
			t.Fatalf("exact limit was changed: %v", err)
		}
		over, err := f.svc.GetNode(ctx, "notes/over.md", 0)
		if err != nil || over.Node.Content != long+core.TruncationSuffix {
			t.Fatalf("limit+1 not cut right: %v", err)
		}
	})

	t.Run("depth 1 adds directed neighbours, counts, neighbour truncation, in one store call", func(t *testing.T) {
		f.reader.resolveCalls.Store(0)
		f.reader.contextCalls.Store(0)
		got, err := f.svc.GetNode(ctx, "notes/graphcore.md", 1)
		if err != nil {
			t.Fatal(err)
		}
		c := got.Context
		if c == nil || c.IncomingCount != 1 || c.OutgoingCount != 2 {
			t.Fatalf("context %+v", c)
		}
		var dirs []string
		for _, n := range c.Neighbors {
			dirs = append(dirs, n.ID+":"+string(n.Direction))
		}
		if strings.Join(dirs, ",") != "notes/node.md:out,notes/store.md:out,notes/index.md:in" {
			t.Fatalf("neighbours %v", dirs)
		}
		store := c.Neighbors[1]
		if store.Content != strings.Repeat("s", core.NeighborContentLimit)+core.TruncationSuffix {
			t.Fatalf("neighbour content not cut at %d: %q", core.NeighborContentLimit, store.Content)
		}
		if len(store.Links) != 1 || store.Links[0].Title != "Node" {
			t.Fatalf("neighbour links %+v", store.Links)
		}
		if r, c := f.reader.resolveCalls.Load(), f.reader.contextCalls.Load(); r != 0 || c != 1 {
			t.Fatalf("ResolveTitles called %d times, NoteContext %d, want 0 and 1", r, c)
		}
	})

	t.Run("bad arguments", func(t *testing.T) {
		for _, depth := range []int{-1, 2} {
			if _, err := f.svc.GetNode(ctx, "notes/node.md", depth); !isInvalid(err) {
				t.Errorf("depth %d: err = %v", depth, err)
			}
		}
		if _, err := f.svc.GetNode(ctx, "  ", 0); !isInvalid(err) {
			t.Errorf("blank id: err = %v", err)
		}
	})
}

func TestGetNodePrefersTheExactID(t *testing.T) {
	// Two files differing only by case: the vault gives one the lowercase
	// ID and the other its exact path.
	f := newFixture(t, []core.Note{
		note("notes/a.md", "lower", "", nil),
		note("notes/A.md", "upper", "", nil),
	})
	for id, want := range map[string]string{"notes/A.md": "upper", "notes/a.md": "lower", "NOTES/A.MD": "lower"} {
		got, err := f.svc.GetNode(t.Context(), id, 0)
		if err != nil || got == nil || got.Node.Title != want {
			t.Fatalf("%s: got %+v, %v; want %s", id, got, err, want)
		}
	}
}

func TestGetNodeCapsNeighboursAtTwenty(t *testing.T) {
	notes := []core.Note{note("hub.md", "Hub", "", nil)}
	for i := range 25 {
		notes = append(notes, note(fmt.Sprintf("n%02d.md", i), "N", "", nil, "hub.md"))
	}
	f := newFixture(t, notes)
	got, err := f.svc.GetNode(t.Context(), "hub.md", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Context.Neighbors) != core.ContextNeighborCount || got.Context.IncomingCount != 25 {
		t.Fatalf("%d neighbours, incoming %d", len(got.Context.Neighbors), got.Context.IncomingCount)
	}
}

func TestNeighbors(t *testing.T) {
	notes := []core.Note{note("a.md", "A", strings.Repeat("x", core.ListContentLimit+1), nil, "b.md"), note("b.md", "B", strings.Repeat("y", core.ListContentLimit), nil, "a.md")}
	for i := range core.MaxNeighborLimit + 1 {
		notes = append(notes, note(fmt.Sprintf("in%02d.md", i), "In", "", nil, "a.md"))
	}
	f := newFixture(t, notes)
	ctx := t.Context()

	got, err := f.svc.Neighbors(ctx, "B.md", core.DirectionOut, 10)
	if err != nil || len(got) != 1 || got[0].ID != "a.md" || got[0].Content != strings.Repeat("x", core.ListContentLimit)+core.TruncationSuffix {
		t.Fatalf("out of B: %+v, %v", got, err)
	}
	got, err = f.svc.Neighbors(ctx, "a.md", core.DirectionOut, 10)
	if err != nil || len(got) != 1 || got[0].Content != strings.Repeat("y", core.ListContentLimit) {
		t.Fatalf("content of exactly %d characters must stay whole: %+v, %v", core.ListContentLimit, got, err)
	}
	got, err = f.svc.Neighbors(ctx, "a.md", core.DirectionBoth, core.MaxNeighborLimit)
	if err != nil || len(got) != core.MaxNeighborLimit {
		t.Fatalf("max limit: %d, %v", len(got), err)
	}
	got, err = f.svc.Neighbors(ctx, "missing.md", core.DirectionBoth, 5)
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("missing node must give an empty list: %#v, %v", got, err)
	}
	for _, limit := range []int{0, core.MaxNeighborLimit + 1} {
		if _, err := f.svc.Neighbors(ctx, "a.md", core.DirectionBoth, limit); !isInvalid(err) {
			t.Errorf("limit %d: err = %v", limit, err)
		}
	}
	if _, err := f.svc.Neighbors(ctx, "a.md", "sideways", 5); !isInvalid(err) {
		t.Errorf("bad direction: err = %v", err)
	}
}

func TestFindPath(t *testing.T) {
	f := newFixture(t, []core.Note{
		note("a.md", "A", "", nil, "b.md"), note("b.md", "B", "", nil, "c.md"), note("c.md", "C", "", nil), note("d.md", "D", "", nil),
	})
	ctx := t.Context()
	if got, err := f.svc.FindPath(ctx, "A.md", "c"); err != nil || strings.Join(got, ",") != "a.md,b.md,c.md" {
		t.Fatalf("path: %v, %v", got, err)
	}
	for _, pair := range [][2]string{{"c.md", "a.md"}, {"a.md", "d.md"}, {"a.md", "zz.md"}, {"zz.md", "a.md"}} {
		if got, err := f.svc.FindPath(ctx, pair[0], pair[1]); err != nil || got != nil {
			t.Errorf("%v: want nil, got %v, %v", pair, got, err)
		}
	}
	if _, err := f.svc.FindPath(ctx, "", "a.md"); !isInvalid(err) {
		t.Errorf("empty source: %v", err)
	}
}

func TestHubs(t *testing.T) {
	f := newFixture(t, nil)
	ctx := t.Context()
	got, err := f.svc.Hubs(ctx, core.MetricInDegree, 10)
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("empty graph: %#v, %v", got, err)
	}
	if _, err := f.svc.Hubs(ctx, core.MetricPageRank, core.MaxHubLimit); err != nil {
		t.Fatalf("pagerank at max limit: %v", err)
	}
	if _, err := f.svc.Hubs(ctx, "betweenness", 10); !isInvalid(err) {
		t.Errorf("bad metric: %v", err)
	}
	for _, limit := range []int{0, core.MaxHubLimit + 1} {
		if _, err := f.svc.Hubs(ctx, core.MetricInDegree, limit); !isInvalid(err) {
			t.Errorf("limit %d: %v", limit, err)
		}
	}
}

func TestSearchByTags(t *testing.T) {
	f := newFixture(t, []core.Note{
		note("a.md", "A", strings.Repeat("a", 600), []string{"ml", "Tutorial"}),
		note("b.md", "B", "", []string{"ml"}),
	})
	ctx := t.Context()
	got, err := f.svc.SearchByTags(ctx, []string{"#ML", "tutorial"}, core.TagModeAll, core.MaxTagSearchLimit)
	if err != nil || len(got) != 1 || got[0].ID != "a.md" || utf8.RuneCountInString(got[0].Content) != core.ListContentLimit+len(core.TruncationSuffix) {
		t.Fatalf("all: %+v, %v", got, err)
	}
	got, err = f.svc.SearchByTags(ctx, []string{"nothing"}, core.TagModeAny, 5)
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("no match must be an empty list: %#v, %v", got, err)
	}
	for name, call := range map[string]func() error{
		"no tags":   func() error { _, err := f.svc.SearchByTags(ctx, nil, core.TagModeAny, 5); return err },
		"bad mode":  func() error { _, err := f.svc.SearchByTags(ctx, []string{"ml"}, "some", 5); return err },
		"limit 0":   func() error { _, err := f.svc.SearchByTags(ctx, []string{"ml"}, core.TagModeAny, 0); return err },
		"limit 101": func() error { _, err := f.svc.SearchByTags(ctx, []string{"ml"}, core.TagModeAny, 101); return err },
	} {
		if err := call(); !isInvalid(err) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestRandomNodeIsRepeatableWithASeed(t *testing.T) {
	var notes []core.Note
	for i := range 30 {
		tags := []string{"odd"}
		if i%2 == 0 {
			tags = []string{"even"}
		}
		notes = append(notes, note(fmt.Sprintf("n%02d.md", i), "N", "", tags))
	}
	draw := func(seed uint64, tags []string) string {
		f := newFixture(t, notes, core.WithRandomSeed(seed))
		var ids []string
		for range 8 {
			n, err := f.svc.RandomNode(t.Context(), tags)
			if err != nil || n == nil {
				t.Fatalf("random: %v, %v", n, err)
			}
			ids = append(ids, n.ID)
		}
		return strings.Join(ids, ",")
	}
	if a, b := draw(42, nil), draw(42, nil); a != b {
		t.Fatalf("same seed, different draws:\n%s\n%s", a, b)
	}
	if draw(1, nil) == draw(2, nil) {
		t.Fatal("different seeds drew the same eight notes")
	}
	for _, id := range strings.Split(draw(7, []string{"even"}), ",") {
		var i int
		if _, err := fmt.Sscanf(id, "n%02d.md", &i); err != nil || i%2 != 0 {
			t.Fatalf("tag filter let %s through", id)
		}
	}
	empty := newFixture(t, nil)
	if n, err := empty.svc.RandomNode(t.Context(), nil); err != nil || n != nil {
		t.Fatalf("empty graph: %v, %v", n, err)
	}
}

func TestSearch(t *testing.T) {
	notes := []core.Note{note("a.md", "A", strings.Repeat("a", 501), nil, "b.md"), note("b.md", "B", "", nil)}
	ctx := t.Context()
	if _, err := newFixture(t, notes).svc.Search(ctx, "q", 5); !errors.Is(err, core.ErrSearchUnavailable) {
		t.Fatalf("no searcher: %v", err)
	}
	hits := fakeSearcher{{ID: "b.md", Score: 0.9}, {ID: "gone.md", Score: 0.8}, {ID: "a.md", Score: 0.5}, {ID: "b.md", Score: 0.1}}
	f := newFixture(t, notes, core.WithSearcher(hits))
	if !f.svc.HasSearch() {
		t.Fatal("HasSearch with a searcher")
	}
	got, err := f.svc.Search(ctx, "anything", core.MaxSearchLimit)
	if err != nil || len(got) != 2 || got[0].ID != "b.md" || got[0].Score != 0.9 || got[1].Score != 0.5 {
		t.Fatalf("got %+v, %v", got, err)
	}
	if !strings.HasSuffix(got[1].Content, core.TruncationSuffix) || got[1].Links[0].Title != "B" {
		t.Fatalf("result not shaped: %+v", got[1])
	}
	if _, err := f.svc.Search(ctx, " ", 5); !isInvalid(err) {
		t.Errorf("blank query: %v", err)
	}
	if _, err := f.svc.Search(ctx, "q", core.MaxSearchLimit+1); !isInvalid(err) {
		t.Errorf("limit over max: %v", err)
	}
}

// vaultService is a GraphService over a temporary vault holding files
// (vault-relative path -> content), mirrored into memstore, writing
// through the vault's writer.
func vaultService(t *testing.T, files map[string]string) (*core.GraphService, *recordingWriter, string) {
	t.Helper()
	root := t.TempDir()
	for rel, content := range files {
		full := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store := memstore.New()
	t.Cleanup(func() { _ = store.Close(context.Background()) })
	mirror, err := vault.NewMirror(vault.Config{Root: root, Project: project, Store: store, NoProgress: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mirror.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	w := &recordingWriter{NoteWriter: mirror.Writer()}
	return core.NewGraphService(project, store, w), w, root
}

func TestWrites(t *testing.T) {
	svc, w, root := vaultService(t, map[string]string{"notes/A.md": "old", "notes/B.md": "see [[A]]"})
	ctx := t.Context()

	created, err := svc.Create(ctx, core.NewNote{Title: "New Note", Content: "body [[A]]", Directory: "notes"})
	if err != nil || created.ID != "notes/new note.md" || created.Tags == nil || len(created.Links) != 1 || created.Links[0].Title != "A" {
		t.Fatalf("create: %+v, %v", created, err)
	}
	if _, err := svc.Create(ctx, core.NewNote{Title: "new note", Directory: "notes"}); !errors.Is(err, core.ErrExists) {
		t.Fatalf("second create: %v", err)
	}
	if _, err := svc.Create(ctx, core.NewNote{Title: "x", Directory: "../out"}); !errors.Is(err, core.ErrInvalidPath) {
		t.Fatalf("escaping directory: %v", err)
	}
	if _, err := svc.Create(ctx, core.NewNote{Title: " "}); !isInvalid(err) {
		t.Fatalf("blank title: %v", err)
	}

	if _, err := svc.Update(ctx, "notes/a.md", core.NoteUpdate{}); !isInvalid(err) {
		t.Fatalf("update without fields: %v", err)
	}
	content := "new"
	res, err := svc.Update(ctx, "Notes/A.md", core.NoteUpdate{Content: &content})
	if err != nil || !strings.HasPrefix(res.Node.Content, "new") || res.Renamed != nil || w.updated[len(w.updated)-1] != "notes/a.md" {
		t.Fatalf("update by another case: %+v, %v, writer saw %v", res, err, w.updated)
	}
	if _, err := svc.Update(ctx, "notes/zz.md", core.NoteUpdate{Content: &content}); !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("update missing: %v", err)
	}
	title := "Alpha"
	res, err = svc.Update(ctx, "notes/a.md", core.NoteUpdate{Title: &title})
	if err != nil || res.Node.ID != "notes/alpha.md" || res.Renamed == nil || res.Renamed.OldID != "notes/a.md" || res.Renamed.FilesChanged != 2 { // B and New Note link to A
		t.Fatalf("rename: %+v, %+v, %v", res, res.Renamed, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "notes", "B.md")); !strings.Contains(string(b), "[[Alpha]]") {
		t.Fatalf("incoming link not rewritten: %q", b)
	}

	calls := len(w.deleted)
	if ok, err := svc.Delete(ctx, "notes/zz.md"); err != nil || ok || len(w.deleted) != calls {
		t.Fatalf("delete missing: %v, %v (the writer must not be asked)", ok, err)
	}
	if ok, err := svc.Delete(ctx, "NOTES/NEW NOTE.MD"); err != nil || !ok {
		t.Fatalf("delete: %v, %v", ok, err)
	}
	if _, err := os.Stat(filepath.Join(root, "notes", "New Note.md")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("file still there: %v", err)
	}
	if _, err := core.NewGraphService(project, memstore.New(), nil).Create(ctx, core.NewNote{Title: "x"}); err == nil {
		t.Fatal("a service without a writer must refuse writes")
	}
}

func TestIDCandidates(t *testing.T) {
	cases := map[string]string{
		"notes/a.md":   "notes/a.md",
		"Notes/A.md":   "Notes/A.md notes/a.md",
		"notes/a":      "notes/a notes/a.md",
		"./Notes/A":    "Notes/A notes/a Notes/A.md notes/a.md",
		"notes/a.MD":   "notes/a.MD notes/a.md",
		" notes/b.md ": "notes/b.md",
	}
	for in, want := range cases {
		if got := strings.Join(core.IDCandidates(in), " "); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// benchGraph is n notes, each linking to the next five (mod n), with
// content of 2,000 characters.
func benchGraph(b *testing.B, n int) *core.GraphService {
	b.Helper()
	store := memstore.New()
	notes := make([]core.Note, n)
	for i := range notes {
		var links []string
		for j := 1; j <= 5; j++ {
			links = append(links, fmt.Sprintf("n%06d.md", (i+j)%n))
		}
		notes[i] = note(fmt.Sprintf("n%06d.md", i), fmt.Sprintf("Note %d", i), strings.Repeat("w", 2000), []string{"t"}, links...)
	}
	if err := store.UpsertNotes(b.Context(), project, notes); err != nil {
		b.Fatal(err)
	}
	return core.NewGraphService(project, store, nil)
}

func BenchmarkGetNodeDepth1(b *testing.B) {
	svc := benchGraph(b, 10000)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := svc.GetNode(b.Context(), fmt.Sprintf("N%06d.md", i%10000), 1); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearchByTags(b *testing.B) {
	svc := benchGraph(b, 10000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.SearchByTags(b.Context(), []string{"t"}, core.TagModeAny, core.MaxTagSearchLimit); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSplitNeighborsSharesTheSlots(t *testing.T) {
	for _, c := range []struct{ limit, out, in, wantOut, wantIn int }{
		{20, 33, 65, 10, 10}, // obsidian-help's Settings: all 20 were "out" before
		{20, 3, 65, 3, 17},
		{20, 33, 2, 18, 2},
		{20, 0, 0, 0, 0},
		{20, 5, 5, 5, 5},
		{5, 33, 65, 3, 2}, // the odd slot goes out
		{1, 0, 4, 0, 1},
		{0, 7, 9, 7, 9}, // no limit
	} {
		gotOut, gotIn := core.SplitNeighbors(c.limit, c.out, c.in)
		if gotOut != c.wantOut || gotIn != c.wantIn {
			t.Errorf("SplitNeighbors(%d, %d, %d) = %d, %d; want %d, %d", c.limit, c.out, c.in, gotOut, gotIn, c.wantOut, c.wantIn)
		}
	}
}

func TestTagMatchesNestedTags(t *testing.T) {
	for _, c := range []struct {
		tag, want string
		match     bool
	}{
		{"go", "go", true}, {"go/lang", "go", true}, {"go/lang/x", "go", true}, {"go/lang", "go/lang", true},
		{"golang", "go", false}, {"go", "go/lang", false}, {"lang", "go/lang", false}, {"x/go", "go", false}, {"go", "", false},
	} {
		if got := core.TagMatches(c.tag, c.want); got != c.match {
			t.Errorf("TagMatches(%q, %q) = %v", c.tag, c.want, got)
		}
	}
}

// failingReader answers every ResolveTitles with a provider error, as
// neo4jstore does while Neo4j is down.
type failingReader struct{ core.GraphReader }

func (failingReader) ResolveTitles(context.Context, string, []string) (map[string]string, error) {
	return nil, core.NewProviderError("neo4j: resolve titles", errors.New("connection refused"))
}

// TestWritesWhileTheStoreFails: every write of the graph service goes to
// the vault while the store fails (issue 44.5): the ID is resolved and
// the answer's link titles are read from the vault's index (the writer's
// core.LocalResolver), and the answer says the store's change is queued.
func TestWritesWhileTheStoreFails(t *testing.T) {
	_, w, root := vaultService(t, map[string]string{"notes/A.md": "---\ntitle: Alpha Title\n---\nold", "notes/B.md": "see [[A]]"})
	svc := core.NewGraphService(project, failingReader{}, w.NoteWriter)
	queued := func(ws *core.CallWarnings) bool {
		for _, m := range ws.List() {
			if m == core.StoreQueuedWarning {
				return true
			}
		}
		return false
	}

	ctx, ws := core.WithCallWarnings(t.Context())
	created, err := svc.Create(ctx, core.NewNote{Title: "Made", Content: "body [[A]]", Directory: "notes"})
	if err != nil || created.ID != "notes/made.md" || len(created.Links) != 1 || created.Links[0].Title != "Alpha Title" || !queued(ws) {
		t.Fatalf("create: %+v, %v, warnings %q", created, err, ws.List())
	}

	ctx, ws = core.WithCallWarnings(t.Context())
	content := "rewritten [[B]]"
	res, err := svc.Update(ctx, "Notes/A.md", core.NoteUpdate{Content: &content})
	if err != nil || res.Node.ID != "notes/a.md" || len(res.Node.Links) != 1 || res.Node.Links[0].Title != "B" || !queued(ws) {
		t.Fatalf("update: %+v, %v, warnings %q", res, err, ws.List())
	}
	if _, err := svc.Update(ctx, "notes/zz.md", core.NoteUpdate{Content: &content}); !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("update of a missing note: %v", err)
	}

	ctx, ws = core.WithCallWarnings(t.Context())
	if ok, err := svc.Delete(ctx, "notes/made.md"); err != nil || !ok || !queued(ws) {
		t.Fatalf("delete: %v, %v, warnings %q", ok, err, ws.List())
	}
	if _, err := os.Stat(filepath.Join(root, "notes", "made.md")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("file still there: %v", err)
	}
	if ok, err := svc.Delete(ctx, "notes/zz.md"); err != nil || ok {
		t.Fatalf("delete of a missing note: %v, %v", ok, err)
	}
}
