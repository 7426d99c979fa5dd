package view

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// Issue 46.2: the view shows who changed what, from the change log: the
// recent changes (api/changes) and a note's last change (api/note), each
// with its actor; a change logged reaches open pages as a "changes" event.
func TestViewShowsWhoChangedWhat(t *testing.T) {
	e := newEnv(t, AuthOptions{}, "")
	c := client(t)
	login(t, e, c, false)
	events := openEvents(t, e, c)

	now := time.Now().UTC()
	logged := []core.NoteChange{
		{Key: core.ChangeKey(now), At: now, Kind: core.ChangeModified, ID: "x/a.md", Path: "x/a.md", Title: "a", Hash: "h1",
			Actor: core.Actor{ID: "alice-sub", Email: "alice@example.com", Name: "Alice"}},
		{Key: core.ChangeKey(now.Add(time.Millisecond)), At: now.Add(time.Millisecond), Kind: core.ChangeModified, ID: "x/b.md", Path: "x/b.md", Title: "b", Hash: "h2",
			Actor: core.Actor{ID: "token:2"}},
		{Key: core.ChangeKey(now.Add(2 * time.Millisecond)), At: now.Add(2 * time.Millisecond), Kind: core.ChangeModified, ID: "x/a.md", Path: "x/a.md", Title: "a", Hash: "h3",
			Actor: core.ActorOutside},
	}
	if err := e.store.AppendChanges(t.Context(), project, logged); err != nil {
		t.Fatal(err)
	}
	e.feed.Logged()
	for name, _ := events.next(t); name != "changes"; name, _ = events.next(t) {
	}

	resp, b := get(t, c, e.srv.URL+PathPrefix+"api/changes?limit=2")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("api/changes: %d %s", resp.StatusCode, b)
	}
	got := decode[struct{ Changes []changeJSON }](t, b)
	if len(got.Changes) != 2 || got.Changes[0].ID != "x/a.md" || got.Changes[0].By == nil || got.Changes[0].By.ID != "outside" ||
		got.Changes[1].ID != "x/b.md" || got.Changes[1].By == nil || got.Changes[1].By.ID != "token:2" {
		t.Fatalf("api/changes?limit=2: %s", b)
	}
	_, b = get(t, c, e.srv.URL+PathPrefix+"api/note?id=x/b.md")
	if n := decode[noteAnswer](t, b); n.LastChange == nil || n.LastChange.By == nil || n.LastChange.By.ID != "token:2" || n.LastChange.Kind != "modified" {
		t.Fatalf("api/note's last change of x/b.md: %s", b)
	}
	_, b = get(t, c, e.srv.URL+PathPrefix+"api/note?id=y/c.md")
	if n := decode[noteAnswer](t, b); n.LastChange != nil {
		t.Fatalf("a note without a logged change has a last change: %s", b)
	}
	for _, bad := range []string{"0", "101", "x", "-1"} {
		if resp, _ := get(t, c, e.srv.URL+PathPrefix+"api/changes?limit="+bad); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("api/changes?limit=%s: %d, want 400", bad, resp.StatusCode)
		}
	}
}

// A note's last change shows however many other notes changed since: the
// view asks the store for the note's own newest change, not a scan of the
// newest entries (which missed it after 500 others).
func TestViewShowsALastChangeBehindManyOthers(t *testing.T) {
	e := newEnv(t, AuthOptions{}, "")
	c := client(t)
	login(t, e, c, false)
	now := time.Now().UTC()
	logged := []core.NoteChange{{Key: core.ChangeKey(now), At: now, Kind: core.ChangeModified, ID: "x/b.md", Path: "x/b.md",
		Title: "b", Hash: "h1", Actor: core.Actor{ID: "alice-sub", Name: "Alice"}}}
	for i := range 600 {
		at := now.Add(time.Duration(i+1) * time.Millisecond)
		logged = append(logged, core.NoteChange{Key: core.ChangeKey(at), At: at, Kind: core.ChangeCreated,
			ID: fmt.Sprintf("other/%d.md", i), Path: fmt.Sprintf("other/%d.md", i), Hash: fmt.Sprint("h", i)})
	}
	if err := e.store.AppendChanges(t.Context(), project, logged); err != nil {
		t.Fatal(err)
	}
	_, b := get(t, c, e.srv.URL+PathPrefix+"api/note?id=x/b.md")
	if n := decode[noteAnswer](t, b); n.LastChange == nil || n.LastChange.By == nil || n.LastChange.By.ID != "alice-sub" || n.LastChange.By.Name != "Alice" {
		t.Fatalf("api/note's last change of x/b.md behind 600 others: %s", b)
	}
}
