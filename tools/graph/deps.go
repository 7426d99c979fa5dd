package graph

import (
	"context"
	"log/slog"

	"github.com/vaultgraph/vaultgraph/core"
)

// Reader is what the read tools need from the graph service.
type Reader interface {
	GetNode(ctx context.Context, id string, depth int) (*core.NodeDetail, error)
	Neighbors(ctx context.Context, id string, dir core.Direction, limit int) ([]core.NeighborView, error)
	FindPath(ctx context.Context, source, target string) ([]string, error)
	Hubs(ctx context.Context, metric core.HubMetric, limit int) ([]core.Hub, error)
	SearchByTags(ctx context.Context, tags []string, mode core.TagMode, limit int) ([]core.NodeView, error)
	RandomNode(ctx context.Context, tags []string) (*core.NodeView, error)
}

// Writer is what create_node, update_node and delete_node need.
type Writer interface {
	Create(ctx context.Context, n core.NewNote) (*core.CreateResult, error)
	Update(ctx context.Context, id string, u core.NoteUpdate) (*core.UpdateResult, error)
	Delete(ctx context.Context, id string) (bool, error)
}

// Searcher is what the search tool needs.
type Searcher interface {
	Search(ctx context.Context, query string, limit int) ([]core.ScoredNode, error)
}

// Deps are the toolset's dependencies, built once by the caller.
type Deps struct {
	Reader   Reader       // required
	Writer   Writer       // nil: create/update/delete_node are not offered
	Searcher Searcher     // nil: search is not offered (spec 001: no embedding provider)
	Logger   *slog.Logger // provider failures are logged here; nil: slog.Default()
}

// The graph service provides every interface of the toolset.
var (
	_ Reader   = (*core.GraphService)(nil)
	_ Writer   = (*core.GraphService)(nil)
	_ Searcher = (*core.GraphService)(nil)
)

// NewDeps wires the toolset to a graph service: search is offered only
// when the service has a Searcher.
func NewDeps(g *core.GraphService, logger *slog.Logger) Deps {
	d := Deps{Reader: g, Writer: g, Logger: logger}
	if g.HasSearch() {
		d.Searcher = g
	}
	return d
}

func (d Deps) logger() *slog.Logger {
	if d.Logger == nil {
		return slog.Default()
	}
	return d.Logger
}
