// Package catalog is every tool vaultgraph can serve, built from the tool
// specs without a store, a vault or a network: what `vaultgraph tools`
// lists and what docs/TOOLS.md is generated from (`make docs`). The tools'
// handlers are not meant to be called: their services are empty.
package catalog

import (
	"context"

	"github.com/vaultgraph/vaultgraph/activity"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/noteedit"
	"github.com/vaultgraph/vaultgraph/tools"
	dtools "github.com/vaultgraph/vaultgraph/tools/docindex"
	edittools "github.com/vaultgraph/vaultgraph/tools/edit"
	"github.com/vaultgraph/vaultgraph/tools/entities"
	"github.com/vaultgraph/vaultgraph/tools/graph"
	kbtools "github.com/vaultgraph/vaultgraph/tools/kb"
	memtools "github.com/vaultgraph/vaultgraph/tools/memory"
)

// Options are the parts of the configuration that decide which tools
// exist at all, before the toolsets select among them.
type Options struct {
	// Embeddings: an embedding provider is configured (the default, the
	// built-in model). Without one, graph's search, the document tools and
	// the memory tools that rank by similarity are not offered.
	Embeddings bool
}

// Tools returns every tool of every toolset that o allows, in the order
// the server registers them.
func Tools(o Options) []tools.Tool {
	var opts []core.GraphOption
	var emb core.Embedder
	if o.Embeddings {
		opts = append(opts, core.WithSearcher(nopSearcher{}))
		emb = nopEmbedder{}
	}
	svc := core.NewGraphService("catalog", nil, nil, opts...)
	all := graph.Tools(graph.NewDeps(svc, nil))
	all = append(all, kbtools.Tools(kbtools.Deps{})...)
	all = append(all, edittools.Tools(edittools.Deps{Editor: noteedit.NewService(nil), Changes: activity.NewService("catalog", nil, nil)})...)
	if o.Embeddings {
		all = append(all, dtools.Tools(dtools.Deps{})...)
	}
	all = append(all, entities.Tools(entities.Deps{})...)
	return append(all, memtools.Tools(memtools.NewDeps(memory.New("catalog", nil, emb), nil))...)
}

type nopSearcher struct{}

func (nopSearcher) Search(context.Context, string, int) ([]core.ScoredID, error) { return nil, nil }

type nopEmbedder struct{}

func (nopEmbedder) Name() string   { return "nop" }
func (nopEmbedder) Model() string  { return "nop" }
func (nopEmbedder) Dimension() int { return 1 }
func (nopEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	return make([][]float32, len(texts)), nil
}
