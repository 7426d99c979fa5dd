package neo4jstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// entityVault is n entity notes: 100 hub concepts, and notes that each
// declare 5 relationships, half of them to a hub, so a hub's depth-2
// neighbourhood is far larger than get_entity_graph's caps.
func entityVault(n int) []core.Note {
	r := rand.New(rand.NewPCG(7, 7))
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	types := []core.EntityType{core.EntityGuide, core.EntityConcept, core.EntityProject, core.EntityNews}
	notes := make([]core.Note, n)
	for i := range notes {
		id := fmt.Sprintf("e%06d.md", i)
		nt := core.Note{ID: id, Title: fmt.Sprintf("Entity %06d about topic %d", i, i%97), Path: id, Hash: id, ModTime: at,
			Keys: []string{fmt.Sprintf("e%06d", i)}}
		e := &core.NoteEntity{ID: core.NameUUID("bench\x00" + id), Type: types[i%4], Slug: fmt.Sprintf("e-%d", i),
			Status: core.StatusDraft, CreatedAt: at, UpdatedAt: at.Add(time.Duration(i%1000) * time.Minute)}
		for k := range 5 {
			target := r.IntN(n)
			if k%2 == 0 {
				target = r.IntN(100)
			}
			key := fmt.Sprintf("e%06d", target)
			nt.Links = append(nt.Links, core.Link{Raw: "[[" + key + "]]", Key: key, Target: key + ".md"})
			e.Relations = append(e.Relations, core.RelationLink{Type: core.RelationTypes[k%len(core.RelationTypes)], Link: k})
		}
		nt.Entity = e
		notes[i] = nt
	}
	return notes
}

// BenchmarkEntities measures the entity reads on 10k entities:
//
//	go test ./neo4jstore -run '^$' -bench Entities -benchtime 200x
func BenchmarkEntities(b *testing.B) {
	s := openStore(b)
	ctx := context.Background()
	project := fmt.Sprintf("bench-entities-%d", time.Now().UnixNano())
	notes := entityVault(10_000)
	b.Logf("loaded 10k entity notes in %s", load(b, s, project, notes, benchBatch).Round(time.Millisecond))
	b.Cleanup(func() {
		ids := make([]string, len(notes))
		for i, n := range notes {
			ids[i] = n.ID
		}
		_, _ = s.DeleteNotes(ctx, project, ids)
	})
	hub, leaf := notes[3].Entity.ID, notes[5001].Entity.ID
	full := core.EntityGraphQuery{Depth: 2, MaxNodes: 100, MaxEdges: 200}
	cases := []struct {
		name string
		run  func() error
	}{
		{"search", func() error {
			_, err := s.SearchEntities(ctx, project, core.EntityQuery{Text: "topic 4", Limit: 20})
			return err
		}},
		{"get", func() error { _, err := s.GetEntity(ctx, project, hub); return err }},
		{"graph-hub-depth2", func() error { _, err := s.EntityGraph(ctx, project, hub, full); return err }},
		{"graph-leaf-depth2", func() error { _, err := s.EntityGraph(ctx, project, leaf, full); return err }},
		{"graph-leaf-depth1", func() error {
			_, err := s.EntityGraph(ctx, project, leaf, core.EntityGraphQuery{Depth: 1, MaxNodes: 100, MaxEdges: 200})
			return err
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				if err := c.run(); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			reportPercentiles(b, lat)
		})
	}
}
