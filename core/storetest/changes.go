package storetest

import (
	"fmt"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// changeAt is a change of note id at minute m after a fixed instant.
func changeAt(m int, kind core.ChangeKind, id string) core.NoteChange {
	at := time.Date(2026, 3, 4, 5, 6, 7, 890, time.UTC).Add(time.Duration(m) * time.Minute)
	return core.NoteChange{Key: core.ChangeKey(at), At: at, Kind: kind, ID: id, Path: id, Title: "T " + id,
		Hash: fmt.Sprintf("h%d", m), SizeBefore: int64(m), SizeAfter: int64(m + 10)}
}

func (e *env) changes(project string, q core.ChangeQuery) []core.NoteChange {
	e.t.Helper()
	got, err := e.store.Changes(e.ctx, project, q)
	require.NoError(e.t, err, "changes")
	return got
}

func (e *env) appendChanges(project string, cs ...core.NoteChange) {
	e.t.Helper()
	require.NoError(e.t, e.store.AppendChanges(e.ctx, project, cs), "append changes")
}

func keys(cs []core.NoteChange) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Key
	}
	return out
}

var changeCases = []testCase{
	{"Changes of a project without a log are none", func(e *env) {
		assert.Empty(e.t, e.changes(e.project(), core.ChangeQuery{Limit: 10}))
	}},
	{"Changes pages the log newest first; Before and Since select, every field comes back", func(e *env) {
		p := e.project()
		var all []core.NoteChange
		for m := range 5 {
			all = append(all, changeAt(m, core.ChangeModified, fmt.Sprintf("n%d.md", m)))
		}
		renamed := changeAt(5, core.ChangeRenamed, "b/new.md")
		renamed.OldID, renamed.OldPath, renamed.Path = "a/old.md", "A/Old.md", "b/New.md"
		renamed.Actor = core.Actor{ID: "248289761001", Email: "ada@example.com", Name: "Ada Lovelace"}
		deleted := changeAt(6, core.ChangeDeleted, "gone.md")
		deleted.Hash, deleted.SizeAfter = "", -1
		deleted.Actor = core.Actor{ID: "token:2"}
		all[4].Actor = core.ActorOutside
		all = append(all, renamed, deleted)
		e.appendChanges(p, all[:3]...)
		e.appendChanges(p, all[3:]...)

		first := e.changes(p, core.ChangeQuery{Limit: 3})
		assert.Equal(e.t, []core.NoteChange{deleted, renamed, all[4]}, first)
		second := e.changes(p, core.ChangeQuery{Limit: 3, Before: first[2].Key})
		assert.Equal(e.t, keys([]core.NoteChange{all[3], all[2], all[1]}), keys(second))
		last := e.changes(p, core.ChangeQuery{Limit: 3, Before: second[2].Key})
		assert.Equal(e.t, keys(all[:1]), keys(last))

		since := e.changes(p, core.ChangeQuery{Limit: 10, Since: all[4].At})
		assert.Equal(e.t, keys([]core.NoteChange{deleted, renamed, all[4]}), keys(since), "Since includes a change at that instant")
	}},
	{"LastChange is a note's newest change, however many others were logged since", func(e *env) {
		p := e.project()
		first := changeAt(1, core.ChangeCreated, "a.md")
		newest := changeAt(2, core.ChangeModified, "a.md")
		newest.Actor = core.Actor{ID: "sub-1", Email: "ada@example.com", Name: "Ada"}
		e.appendChanges(p, first, newest)
		var others []core.NoteChange
		for m := range 50 {
			others = append(others, changeAt(3+m, core.ChangeModified, fmt.Sprintf("o%d.md", m)))
		}
		e.appendChanges(p, others...)
		got, err := e.store.LastChange(e.ctx, p, "a.md")
		require.NoError(e.t, err)
		require.NotNil(e.t, got)
		assert.Equal(e.t, newest, *got)
		none, err := e.store.LastChange(e.ctx, p, "never.md")
		require.NoError(e.t, err)
		assert.Nil(e.t, none)
		other, err := e.store.LastChange(e.ctx, e.project(), "a.md")
		require.NoError(e.t, err)
		assert.Nil(e.t, other, "another project's log")
		_, err = e.store.PruneChanges(e.ctx, p, time.Time{}, 10) // a.md's changes are the oldest
		require.NoError(e.t, err)
		gone, err := e.store.LastChange(e.ctx, p, "a.md")
		require.NoError(e.t, err)
		assert.Nil(e.t, gone, "pruned")
	}},
	{"A change equal to its note's newest logged change is not logged again", func(e *env) {
		p := e.project()
		a := changeAt(1, core.ChangeModified, "a.md")
		again := a
		again.Key, again.At = core.ChangeKey(a.At.Add(time.Second)), a.At.Add(time.Second)
		e.appendChanges(p, a, again) // in one batch
		e.appendChanges(p, again)    // and in another
		e.appendChanges(p, a)        // a key already logged
		assert.Equal(e.t, keys([]core.NoteChange{a}), keys(e.changes(p, core.ChangeQuery{Limit: 10})))

		other := changeAt(2, core.ChangeModified, "a.md") // another hash
		back := a
		back.Key, back.At = core.ChangeKey(a.At.Add(3*time.Minute)), a.At.Add(3*time.Minute) // back to the first text
		e.appendChanges(p, other, back)
		assert.Equal(e.t, keys([]core.NoteChange{back, other, a}), keys(e.changes(p, core.ChangeQuery{Limit: 10})))
	}},
	{"PruneChanges drops what is older than its time, then all but the newest it keeps", func(e *env) {
		p := e.project()
		var all []core.NoteChange
		for m := range 6 {
			all = append(all, changeAt(m, core.ChangeCreated, fmt.Sprintf("n%d.md", m)))
		}
		e.appendChanges(p, all...)
		n, err := e.store.PruneChanges(e.ctx, p, all[2].At, 100)
		require.NoError(e.t, err)
		assert.Equal(e.t, 2, n)
		n, err = e.store.PruneChanges(e.ctx, p, all[0].At, 3)
		require.NoError(e.t, err)
		assert.Equal(e.t, 1, n)
		assert.Equal(e.t, keys([]core.NoteChange{all[5], all[4], all[3]}), keys(e.changes(p, core.ChangeQuery{Limit: 10})))
		// A pruned note's change may be logged again.
		e.appendChanges(p, all[0])
		assert.Len(e.t, e.changes(p, core.ChangeQuery{Limit: 10}), 4)
	}},
	{"Change logs of two projects are apart", func(e *env) {
		p, q := e.project(), e.project()
		e.appendChanges(p, changeAt(1, core.ChangeCreated, "a.md"))
		assert.Empty(e.t, e.changes(q, core.ChangeQuery{Limit: 10}))
		n, err := e.store.PruneChanges(e.ctx, q, time.Now(), 0)
		require.NoError(e.t, err)
		assert.Zero(e.t, n)
		assert.Len(e.t, e.changes(p, core.ChangeQuery{Limit: 10}), 1)
	}},
}
