package memstore_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/benchgen"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/builtin"
	"github.com/vaultgraph/vaultgraph/embedding/flat"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// TestInt8VectorSearchRecall: the store keeps its vectors in memory as
// int8 and rescores the int8 candidates with the exact vectors from disk
// (search.go). Its top 10 must be the exact float32 scan's (flat.Index, what
// the store searched with before and what the Neo4j store's mirror still
// does) for nearly every query, on the generated vault embedded with the
// built-in model, queried with note titles and with short phrases of note
// text. -v logs the recall, also of the int8 scan alone without rescoring.
// VAULTGRAPH_SOAK=1 (make soak) runs it on 20,000 notes, CI on 4,000.
func TestInt8VectorSearchRecall(t *testing.T) {
	// 4,000 notes in CI: under the race detector the 20,000 of the first
	// measurement took about 7 of memstore's 8.5 minutes. make soak runs
	// those 20,000.
	notes := 4_000
	if testing.Short() {
		notes = 3_000
	}
	if os.Getenv("VAULTGRAPH_SOAK") != "" {
		notes = 20_000
	}
	dir := t.TempDir()
	man, err := benchgen.Generate(dir, benchgen.Config{Notes: notes, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	emb, err := builtin.New()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	texts := make([]string, len(man.Notes))
	batch := make([]core.Note, len(man.Notes))
	for i, n := range man.Notes {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n.Path)))
		if err != nil {
			t.Fatal(err)
		}
		title := strings.TrimSuffix(filepath.Base(n.Path), ".md")
		texts[i] = title + "\n" + string(b)
		batch[i] = core.Note{Project: "p", ID: n.ID(), Path: n.Path, Title: title, Hash: "h", Tags: []string{}}
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	s := memstore.New()
	t.Cleanup(func() { _ = s.Close(ctx) })
	if err := s.UpsertNotes(ctx, "p", batch); err != nil {
		t.Fatal(err)
	}
	exact := flat.New(emb.Dimension())
	int8s := flat.NewInt8(emb.Dimension())
	nv := make([]core.NoteVector, len(batch))
	for i := range batch {
		nv[i] = core.NoteVector{ID: batch[i].ID, Hash: "h", Vector: vecs[i]}
		u := flat.Normalize(vecs[i])
		exact.Set(batch[i].ID, u)
		int8s.Set(i, u)
	}
	if err := s.SetNoteVectors(ctx, "p", "m", nv); err != nil {
		t.Fatal(err)
	}

	// Queries: 200 titles and 200 phrases of five words from note texts.
	var queries []string
	for i := 0; i < len(batch) && len(queries) < 200; i += len(batch) / 200 {
		queries = append(queries, batch[i].Title)
	}
	for i := 7; i < len(batch) && len(queries) < 400; i += len(batch) / 200 {
		words := strings.Fields(texts[i])
		at := len(words) / 2
		queries = append(queries, strings.Join(words[max(0, at-2):min(len(words), at+3)], " "))
	}
	qvecs, err := emb.Embed(ctx, queries)
	if err != nil {
		t.Fatal(err)
	}
	const k = 10
	var found, foundInt8Only, total, sameScores int
	for _, qv := range qvecs {
		q := flat.Normalize(qv)
		want := exact.TopK(q, k)
		got, err := s.VectorSearch(ctx, "p", "m", qv, k)
		if err != nil {
			t.Fatal(err)
		}
		var alone []string
		for _, c := range int8s.TopK(q, k) {
			alone = append(alone, batch[c.Row].ID)
		}
		for _, w := range want {
			total++
			if i := slices.IndexFunc(got, func(g core.ScoredID) bool { return g.ID == w.ID }); i >= 0 {
				found++
				if got[i].Score == w.Score {
					sameScores++
				}
			}
			if slices.Contains(alone, w.ID) {
				foundInt8Only++
			}
		}
	}
	recall := float64(found) / float64(total)
	t.Logf("%d notes, %d queries: recall@%d int8+rescore %.4f (exact scores %d of %d found), int8 alone %.4f",
		len(batch), len(qvecs), k, recall, sameScores, found, float64(foundInt8Only)/float64(total))
	if recall < 0.99 {
		t.Errorf("recall@%d %.4f against the exact scan, want at least 0.99", k, recall)
	}
	if sameScores != found {
		t.Errorf("%d of %d hits found carry another score than the exact scan's", found-sameScores, found)
	}
}
