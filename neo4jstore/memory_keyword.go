package neo4jstore

import (
	"context"
	"sync"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/keyword"
)

// memoryWords keeps, per project, a BM25 index of memory contents in the
// process (package embedding/keyword, the embedded store's index), so that
// keyword scores are the same numbers on both stores: the memory service
// weighs them against cosine similarity and its thresholds must not depend
// on the store. A memory's content never changes and IDs are never reused,
// so an entry stays right while its memory exists; each search reads the
// project's IDs and brings the index in line first (new memories' contents
// are read, deleted ones dropped), which also covers other processes'
// writes.
type memoryWords struct {
	mu       sync.Mutex
	projects map[string]*projectWords
}

type projectWords struct {
	mu  sync.Mutex // one sync and search at a time per project
	ix  *keyword.Index
	ids map[string]bool
}

func (w *memoryWords) project(p string) *projectWords {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.projects == nil {
		w.projects = map[string]*projectWords{}
	}
	pw := w.projects[p]
	if pw == nil {
		pw = &projectWords{ix: keyword.NewIndex(), ids: map[string]bool{}}
		w.projects[p] = pw
	}
	return pw
}

// contentBatch bounds how many contents one statement reads.
const contentBatch = 2000

// KeywordSearchMemories ranks the selected memories by BM25 over their
// contents. One read transaction: the project's IDs with the filter's
// verdict, the contents the index lacks, then the best memories whole.
func (s *Neo4jStore) KeywordSearchMemories(ctx context.Context, project, text string, f core.MemoryFilter, limit int) ([]core.ScoredMemory, error) {
	out := []core.ScoredMemory{}
	if len(keyword.Terms(text)) == 0 {
		return out, nil
	}
	pw := s.memWords.project(project)
	err := s.read(ctx, "keyword search memories", func(t txn) error {
		out = out[:0]
		records, err := t.collect(stmtMemoryIDsSelected, filterParams(project, f))
		if err != nil {
			return err
		}
		all := make(map[string]bool, len(records))
		selected := map[string]bool{}
		for _, r := range records {
			id := str(r.Values[0])
			all[id] = true
			if b, _ := r.Values[1].(bool); b {
				selected[id] = true
			}
		}
		pw.mu.Lock()
		defer pw.mu.Unlock()
		for id := range pw.ids {
			if !all[id] {
				pw.ix.Delete(id)
				delete(pw.ids, id)
			}
		}
		var missing []string
		for id := range all {
			if !pw.ids[id] {
				missing = append(missing, id)
			}
		}
		for start := 0; start < len(missing); start += contentBatch {
			batch := missing[start:min(start+contentBatch, len(missing))]
			rows, err := t.collect(stmtMemoryContents, map[string]any{"project": project, "ids": batch})
			if err != nil {
				return err
			}
			for _, r := range rows {
				id := str(r.Values[0])
				pw.ix.Put(id, str(r.Values[1]))
				pw.ids[id] = true
			}
		}
		var top []string
		scores := map[string]float64{}
		for _, h := range pw.ix.Search(text, pw.ix.Len()) {
			if !selected[h.ID] {
				continue
			}
			top = append(top, h.ID)
			scores[h.ID] = h.Score
			if limit > 0 && len(top) == limit {
				break
			}
		}
		if len(top) == 0 {
			return nil
		}
		rows, err := t.collect(stmtMemoryGetMany, map[string]any{"project": project, "ids": top})
		if err != nil {
			return err
		}
		byID := make(map[string]core.Memory, len(rows))
		for _, r := range rows {
			m, err := decodeMemory(r)
			if err != nil {
				return err
			}
			byID[m.ID] = m
		}
		for _, id := range top {
			if m, ok := byID[id]; ok {
				out = append(out, core.ScoredMemory{Memory: m, Score: scores[id]})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
