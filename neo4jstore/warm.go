package neo4jstore

import (
	"context"
	"fmt"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

var _ core.WriteWarmer = (*Neo4jStore)(nil)

// WarmWrites makes, in WarmProject(like), the writes the vault makes as
// files change (core.WriteWarmer): a note created with a ghost link, one
// created linking it, the first changed, the second deleted, a change
// logged and pruned; then it deletes what it wrote. Each is its own
// transaction through the same methods as a live write, committed like
// one.
//
// Why: a fresh Neo4j runs each statement's first execution cold (planning,
// class loading, the JVM's first compilations): the first note saved
// after a start took 0.5-3 s to reach the store, against 20-60 ms for the
// next (neo4jstore debug timings, 2-core machine under load). What was
// measured to leave that first write cold: the same statements in a
// transaction rolled back instead of committed (the creation stayed at
// 0.2-0.7 s), and a warm-up project whose key was not as long as the real
// one (both paths stayed at 1.1-1.6 s): the plan cache appears to key
// string parameters by their size.
func (s *Neo4jStore) WarmWrites(ctx context.Context, like string) error {
	project := WarmProject(like)
	a, b := warmNote("a", "", "vaultgraph-warm-up-ghost"), warmNote("b", warmPrefix+"a.md", "")
	a2 := warmNote("a", warmPrefix+"b.md", "")
	a2.Hash = "changed"
	ids := []string{a.ID, b.ID}
	now := time.Now()
	steps := []func() error{
		// What a warm-up that stopped half-way left behind.
		func() error { _, err := s.DeleteNotes(ctx, project, ids); return err },
		func() error { return s.UpsertNotes(ctx, project, []core.Note{a}) },
		func() error { return s.UpsertNotes(ctx, project, []core.Note{b}) },
		func() error { return s.UpsertNotes(ctx, project, []core.Note{a2}) },
		func() error { _, err := s.DeleteNotes(ctx, project, ids[1:]); return err },
		func() error { _, err := s.DeleteNotes(ctx, project, ids[:1]); return err },
		func() error {
			return s.AppendChanges(ctx, project, []core.NoteChange{{Key: core.ChangeKey(now), At: now, Kind: core.ChangeCreated, ID: a.ID, Path: a.Path, Title: a.Title, Hash: a.Hash}})
		},
		func() error { _, err := s.PruneChanges(ctx, project, now.Add(time.Second), 0); return err },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("neo4jstore: warm writes: %w", err)
		}
	}
	return nil
}

// WarmProject is the project WarmWrites(like) writes in: a key of as
// many characters as like (see WarmWrites) that no configuration can
// hold, as it starts with a NUL. All it leaves is its write counter (one
// GraphMeta node).
func WarmProject(like string) string {
	r := []rune(like)
	if len(r) == 0 {
		return "\x00"
	}
	return "\x00" + string(r[1:])
}

// warmPrefix starts the IDs of WarmWrites' notes.
const warmPrefix = "warm-up/"

// warmNote is a made-up note named name, as the vault sends one: linking
// target (an ID) or, when that is "", the key ghost, with a tag, a size
// and a time.
func warmNote(name, target, ghost string) core.Note {
	id := warmPrefix + name + ".md"
	n := core.Note{ID: id, Path: id, Title: name, Content: "A note made up to warm the store up.", Hash: "warm-" + name,
		Size: 36, ModTime: time.Now().UTC(), Tags: []string{"warm-up"}, Keys: []string{"vaultgraph-warm-up-" + name}}
	switch {
	case target != "":
		n.Links = []core.Link{{Raw: "[[x]]", Key: "vaultgraph-warm-up-x", Target: target}}
	case ghost != "":
		n.Links = []core.Link{{Raw: "[[" + ghost + "]]", Key: ghost}}
	}
	return n
}
