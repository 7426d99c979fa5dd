package main

import (
	"context"
	"fmt"
	"time"

	"github.com/vaultgraph/vaultgraph/docindex"
	"github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/tools"
	dtools "github.com/vaultgraph/vaultgraph/tools/docindex"
)

// documentTools returns the document tools of the memory toolset (spec
// 004): none when the memory toolset is off and none of them is named
// alone (tools: [index_file]), or when no embedding provider is
// configured (embedding.provider: none), since every chunk is embedded.
// Files can be read from the vault and from documents.allowed_roots only.
func (a *app) documentTools(sel tools.Selection) ([]tools.Tool, error) {
	if !sel.Wants(tools.ToolsetMemory, dtools.Specs()) {
		return nil, nil
	}
	emb := a.search.embedder // shared: the built-in model is loaded once
	if emb == nil {
		a.logger.Info("document tools are off: they need an embedding provider (embedding.provider is none)")
		return nil, nil
	}
	if a.docs != nil { // one index per app: its background upgrades hear of every write
		return dtools.Tools(dtools.Deps{Index: a.docs, Logger: a.logger}), nil
	}
	root := a.mirror.Root()
	svc, err := docindex.New(docindex.Config{
		Project:  a.primary.Key,
		Store:    a.store,
		Embedder: emb,
		// The built-in provider's static table: chunks are searchable at
		// once, and runIndexer upgrades them in the background.
		Fast:     a.search.fast,
		Roots:    append([]string{root}, a.cfg.Documents.AllowedRoots...),
		Vault:    root,
		Notes:    a.store,
		Memories: memorySearch{a.memoryService()},
		Logger:   a.logger,
	})
	if err != nil {
		return nil, fmt.Errorf("document index: %w", err)
	}
	a.docs = svc
	return dtools.Tools(dtools.Deps{Index: svc, Logger: a.logger}), nil
}

// memorySearch gives the document index the memories of spec 004's search
// ("across indexed documents and memories") and of get_index_stats.
type memorySearch struct{ svc *memory.Service }

var _ docindex.Memories = memorySearch{}

func (m memorySearch) SearchMemories(ctx context.Context, query, namespace string, limit int) ([]docindex.Hit, error) {
	hits, err := m.svc.Search(ctx, query, namespace, limit)
	if err != nil {
		return nil, err
	}
	out := make([]docindex.Hit, len(hits))
	for i, h := range hits {
		out[i] = docindex.Hit{
			ID: h.ID, Content: h.Content, Score: h.Score, Namespace: h.Namespace, DocType: docindex.DocTypeMemory,
			Metadata: map[string]any{
				"memory_type": h.Type,
				"confidence":  memory.ToFloat(h.Confidence),
				"importance":  h.Importance,
				"created_at":  h.CreatedAt.UTC().Format(time.RFC3339),
			},
		}
	}
	return out, nil
}

func (m memorySearch) MemoryStats(ctx context.Context) (docindex.MemoryStats, error) {
	st, err := m.svc.Stats(ctx)
	if err != nil {
		return docindex.MemoryStats{}, err
	}
	return docindex.MemoryStats{Count: st.Count, GoldenRules: st.GoldenRules, Namespaces: st.Namespaces}, nil
}
