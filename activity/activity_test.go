package activity

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

func TestSummary(t *testing.T) {
	for _, c := range []struct {
		change core.NoteChange
		want   string
	}{
		{core.NoteChange{Kind: core.ChangeCreated, SizeBefore: -1, SizeAfter: 1}, "created, 1 byte"},
		{core.NoteChange{Kind: core.ChangeDeleted, SizeBefore: 12345, SizeAfter: -1}, "deleted, was 12,345 bytes"},
		{core.NoteChange{Kind: core.ChangeModified, SizeBefore: 1084, SizeAfter: 1204}, "modified: +120 bytes (1,084 → 1,204)"},
		{core.NoteChange{Kind: core.ChangeModified, SizeBefore: 10, SizeAfter: 7}, "modified: -3 bytes (10 → 7)"},
		{core.NoteChange{Kind: core.ChangeModified, SizeBefore: 10, SizeAfter: 10}, "modified: same size (10 bytes)"},
		{core.NoteChange{Kind: core.ChangeModified, SizeBefore: -1, SizeAfter: 10}, "modified, now 10 bytes"},
		{core.NoteChange{Kind: core.ChangeRenamed, OldPath: "a.md", SizeBefore: 5, SizeAfter: 5}, "renamed from a.md"},
		{core.NoteChange{Kind: core.ChangeRenamed, OldPath: "a.md", SizeBefore: 5, SizeAfter: 1000000}, "renamed from a.md; +999,995 bytes (5 → 1,000,000)"},
	} {
		if got := Summary(c.change); got != c.want {
			t.Errorf("Summary(%+v) = %q, want %q", c.change, got, c.want)
		}
	}
}

func TestSinceForms(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s := &Service{now: func() time.Time { return now }}
	for in, want := range map[string]time.Time{
		"":                          {},
		"2026-04-30T09:00:00Z":      time.Date(2026, 4, 30, 9, 0, 0, 0, time.UTC),
		"2026-04-30T09:00:00+02:00": time.Date(2026, 4, 30, 7, 0, 0, 0, time.UTC),
		"2026-04-30":                time.Date(2026, 4, 30, 0, 0, 0, 0, time.UTC),
		"90m":                       now.Add(-90 * time.Minute),
		"24h":                       now.Add(-24 * time.Hour),
		"7d":                        now.Add(-7 * 24 * time.Hour),
		"2W":                        now.Add(-14 * 24 * time.Hour),
	} {
		got, err := s.parseSince(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("since %q = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"yesterday", "-1d", "3y", "99999999999h"} {
		_, err := s.parseSince(in)
		var ae *core.ArgumentError
		if !errors.As(err, &ae) || !strings.Contains(ae.Msg, "90m, 24h, 7d, 2w") {
			t.Errorf("since %q: %v", in, err)
		}
	}
}

// failing is a store whose log refuses writes until it is told.
type failing struct {
	*memstore.Store
	refuse bool
}

func (f *failing) AppendChanges(ctx context.Context, project string, cs []core.NoteChange) error {
	if f.refuse {
		return core.NewProviderError("append", errors.New("down"))
	}
	return f.Store.AppendChanges(ctx, project, cs)
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// A store that refuses the log keeps the changes queued: the next write
// or read writes them, in order, and recent_changes pages them.
func TestRecorderKeepsWhatTheStoreRefusedAndThePagesAreExact(t *testing.T) {
	ctx := t.Context()
	st := &failing{Store: memstore.New(), refuse: true}
	rec := NewRecorder("p", st, quiet())
	svc := NewService("p", st, rec)
	at := time.Now().Add(-time.Hour)
	for i := range 5 {
		rec.Record(ctx, []core.NoteChange{{At: at.Add(time.Duration(i) * time.Minute), Kind: core.ChangeModified, ID: string(rune('a'+i)) + ".md", Path: string(rune('a'+i)) + ".md", Hash: "h", SizeBefore: 1, SizeAfter: 2}})
	}
	// A deleted note's title comes from the store (none here: the file name).
	rec.Record(ctx, []core.NoteChange{{At: at.Add(10 * time.Minute), Kind: core.ChangeDeleted, ID: "x/gone.md", Path: "x/Gone.md", SizeBefore: 3, SizeAfter: -1}})
	if page, err := svc.Recent(ctx, Query{}); err != nil || len(page.Changes) != 0 {
		t.Fatalf("while the store refuses: %v, %v", page, err)
	}
	st.refuse = false
	var ids []string
	q := Query{Limit: 4}
	for range 3 {
		page, err := svc.Recent(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page.Changes {
			ids = append(ids, c.ID)
			if c.Kind == core.ChangeDeleted && c.Title != "Gone" {
				t.Errorf("deleted title %q", c.Title)
			}
		}
		if page.NextCursor == "" {
			break
		}
		q.Cursor = page.NextCursor
	}
	if got := strings.Join(ids, " "); got != "x/gone.md e.md d.md c.md b.md a.md" {
		t.Errorf("pages: %s", got)
	}
	if _, err := svc.Recent(ctx, Query{Limit: MaxLimit + 1}); err == nil {
		t.Error("a limit over the maximum was accepted")
	}
	if _, err := svc.Recent(ctx, Query{Cursor: "x"}); err == nil {
		t.Error("a made-up cursor was accepted")
	}
}

// The log is pruned to its bounds as it is written: a change older than
// core.ChangeLogMaxAge goes.
func TestRecorderPrunesTheLog(t *testing.T) {
	ctx := t.Context()
	st := memstore.New()
	rec := NewRecorder("p", st, quiet())
	now := time.Now()
	rec.Record(ctx, []core.NoteChange{
		{At: now.Add(-core.ChangeLogMaxAge - time.Hour), Kind: core.ChangeCreated, ID: "old.md", Path: "old.md", SizeBefore: -1, SizeAfter: 1},
		{At: now, Kind: core.ChangeCreated, ID: "new.md", Path: "new.md", SizeBefore: -1, SizeAfter: 1},
	})
	got, err := st.Changes(ctx, "p", core.ChangeQuery{Limit: 10})
	if err != nil || len(got) != 1 || got[0].ID != "new.md" {
		t.Fatalf("after pruning: %v, %v", got, err)
	}
}

// Issue 46.2: changes.record_actor off (ForgetActors) stores no one's
// subject, email or name; on, the actor is stored as given.
func TestRecorderForgetsActorsWhenToldTo(t *testing.T) {
	ctx := t.Context()
	alice := core.Actor{ID: "alice-sub", Email: "alice@example.com", Name: "Alice"}
	for _, forget := range []bool{false, true} {
		st := memstore.New()
		rec := NewRecorder("p", st, quiet())
		if forget {
			rec.ForgetActors()
		}
		rec.Record(ctx, []core.NoteChange{{At: time.Now(), Kind: core.ChangeCreated, ID: "a.md", Path: "a.md", SizeBefore: -1, SizeAfter: 1, Actor: alice}})
		got, err := st.Changes(ctx, "p", core.ChangeQuery{Limit: 10})
		if err != nil || len(got) != 1 {
			t.Fatalf("forget=%v: %v, %v", forget, got, err)
		}
		want := alice
		if forget {
			want = core.Actor{}
		}
		if got[0].Actor != want {
			t.Errorf("forget=%v: stored actor %+v, want %+v", forget, got[0].Actor, want)
		}
	}
}
