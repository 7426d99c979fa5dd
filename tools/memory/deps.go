package memory

import (
	"context"
	"log/slog"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	mem "github.com/vaultgraph/vaultgraph/memory"
)

// Memories is what the memory tools need: the memory service of spec 004.
type Memories interface {
	Store(ctx context.Context, in mem.StoreInput) (core.Memory, bool, error)
	Get(ctx context.Context, id string) (*core.Memory, error)
	Recall(ctx context.Context, query string, n int, f mem.Filter) ([]core.ScoredMemory, error)
	RecallFloorOf() float64
	Validate(ctx context.Context, id string, helpful bool, context string) (mem.Feedback, error)
	Outcome(ctx context.Context, id string, success bool, outcome, applyID, sessionID string) (mem.Feedback, error)
	Apply(ctx context.Context, id, context, sessionID string) (core.Memory, core.MemoryEvent, error)
	Forget(ctx context.Context, in mem.ForgetInput) (mem.ForgetResult, error)
	Context(ctx context.Context, query, namespace string, budget int) (mem.ContextResult, error)
	Count(ctx context.Context, f mem.Filter) (int, error)
	List(ctx context.Context, f mem.Filter, page core.MemoryPage) ([]core.Memory, int, error)
	History(ctx context.Context, id, kind string, limit int) ([]core.MemoryEvent, *core.Memory, error)
	Relate(ctx context.Context, from, to, relType string, weight float64) (bool, error)
	Unrelate(ctx context.Context, from, to, relType, direction string) (int, error)
	Inspect(ctx context.Context, id string, maxDepth int, decay float64, opts ...mem.WalkOptions) (mem.Graph, error)
	RelatedTo(ctx context.Context, ids []string, maxDepth int) ([]mem.Related, error)
	DetectContradictions(ctx context.Context, id, namespace string, threshold float64) ([]mem.Contradiction, int, error)
	CheckSupersedes(ctx context.Context, id, target string, threshold float64) (core.Memory, []mem.SupersedeCandidate, error)
	AnalyzeHealth(ctx context.Context, namespace string, staleDays int, checks ...mem.HealthChecks) (mem.Health, error)
	// HasEmbedder reports whether semantic similarity is available; without
	// it the tools that cannot work at all are not offered.
	HasEmbedder() bool
}

var _ Memories = (*mem.Service)(nil)

// Deps are the toolset's dependencies, built once by the caller.
type Deps struct {
	Memories Memories     // required
	Logger   *slog.Logger // failures the caller cannot fix are logged here; nil: slog.Default()
	// Now is the clock of answers that report "now"; nil: time.Now.
	Now func() time.Time
}

// NewDeps wires the toolset to a memory service.
func NewDeps(s *mem.Service, logger *slog.Logger) Deps {
	return Deps{Memories: s, Logger: logger}
}

func (d Deps) logger() *slog.Logger {
	if d.Logger == nil {
		return slog.Default()
	}
	return d.Logger
}
