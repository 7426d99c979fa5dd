package memory

import (
	"context"
	"math"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
	mem "github.com/vaultgraph/vaultgraph/memory"
)

// maxListed bounds each list of memory_analyze_health.
const maxListed = 50

// MemoryGroup is a counted list of memories.
type MemoryGroup struct {
	Count    int           `json:"count"`
	Memories []BriefMemory `json:"memories"`
}

// PairGroup is a counted list of pairs.
type PairGroup struct {
	Count int        `json:"count"`
	Pairs []PairView `json:"pairs"`
}

// MemoryAnalyzeHealthResponse is memory_analyze_health's data.
type MemoryAnalyzeHealthResponse struct {
	TotalMemories     int            `json:"total_memories"`
	ByType            map[string]int `json:"by_type"`
	ByNamespace       map[string]int `json:"by_namespace"`
	GoldenRuleCount   int            `json:"golden_rule_count"`
	AverageConfidence float64        `json:"average_confidence"`
	LowConfidence     MemoryGroup    `json:"low_confidence"`
	Stale             MemoryGroup    `json:"stale"`
	StaleDays         int            `json:"stale_days"`
	Contradictions    PairGroup      `json:"contradictions"`
	Duplicates        PairGroup      `json:"duplicates"`
	HealthScore       float64        `json:"health_score"`
	Recommendations   []string       `json:"recommendations"`
}

func group(ms []core.Memory) MemoryGroup {
	g := MemoryGroup{Count: len(ms), Memories: []BriefMemory{}}
	for i, m := range ms {
		if i == maxListed {
			break
		}
		g.Memories = append(g.Memories, brief(m))
	}
	return g
}

func pairGroup(cs []mem.Contradiction) PairGroup {
	return PairGroup{Count: len(cs), Pairs: pairs(cs[:min(len(cs), maxListed)])}
}

// MemoryAnalyzeHealthHandler answers memory_analyze_health.
func MemoryAnalyzeHealthHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), MemoryAnalyzeHealthSpec(), func(ctx context.Context, in MemoryAnalyzeHealthInput) (any, error) {
		days := tools.IntOr(in.StaleDays, mem.DefaultStaleDays)
		checks := mem.HealthChecks{Contradictions: tools.Or(in.IncludeContradictions, true),
			LowConfidence: tools.Or(in.IncludeLowConfidence, true), Stale: tools.Or(in.IncludeStale, true)}
		h, err := d.Memories.AnalyzeHealth(ctx, in.Namespace, days, checks)
		if err != nil {
			return nil, err
		}
		flagged := map[string]bool{}
		for _, ms := range [][]core.Memory{h.LowConfidence, h.Stale} {
			for _, m := range ms {
				flagged[m.ID] = true
			}
		}
		for _, cs := range [][]mem.Contradiction{h.Contradictions, h.Duplicates} {
			for _, c := range cs {
				flagged[c.A.ID], flagged[c.B.ID] = true, true
			}
		}
		score := 1.0
		if h.Total > 0 {
			score = math.Round((1-float64(len(flagged))/float64(h.Total))*10000) / 10000
		}
		return MemoryAnalyzeHealthResponse{TotalMemories: h.Total, ByType: h.ByType, ByNamespace: h.ByNamespace,
			GoldenRuleCount: h.GoldenRules, AverageConfidence: h.AvgConfidence, LowConfidence: group(h.LowConfidence),
			Stale: group(h.Stale), StaleDays: days, Contradictions: pairGroup(h.Contradictions), Duplicates: pairGroup(h.Duplicates),
			HealthScore: score, Recommendations: h.Recommendations}, nil
	})
}
