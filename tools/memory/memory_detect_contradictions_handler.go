package memory

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
	mem "github.com/vaultgraph/vaultgraph/memory"
)

// BriefMemory is a memory named inside an analysis.
type BriefMemory struct {
	ID           string  `json:"id"`
	Content      string  `json:"content"`
	MemoryType   string  `json:"memory_type"`
	Namespace    string  `json:"namespace"`
	Confidence   float64 `json:"confidence"`
	CreatedAt    string  `json:"created_at"`
	LastAccessed string  `json:"last_accessed"`
}

func brief(m core.Memory) BriefMemory {
	return BriefMemory{ID: m.ID, Content: m.Content, MemoryType: m.Type, Namespace: m.Namespace,
		Confidence: mem.ToFloat(m.Confidence), CreatedAt: ts(m.CreatedAt), LastAccessed: ts(m.LastAccessed)}
}

// PairView is two memories with their similarity and why they are paired.
type PairView struct {
	MemoryA    BriefMemory `json:"memory_a"`
	MemoryB    BriefMemory `json:"memory_b"`
	Similarity float64     `json:"similarity"`
	Reason     string      `json:"reason,omitempty"`
}

func pairs(cs []mem.Contradiction) []PairView {
	out := make([]PairView, len(cs))
	for i, c := range cs {
		out[i] = PairView{MemoryA: brief(c.A), MemoryB: brief(c.B), Similarity: c.Similarity, Reason: c.Reason}
	}
	return out
}

// MemoryDetectContradictionsResponse is memory_detect_contradictions' data.
type MemoryDetectContradictionsResponse struct {
	Contradictions []PairView `json:"contradictions"`
	Count          int        `json:"count"`
	Analyzed       int        `json:"analyzed"`
	Threshold      float64    `json:"threshold"`
}

// MemoryDetectContradictionsHandler answers memory_detect_contradictions.
func MemoryDetectContradictionsHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), MemoryDetectContradictionsSpec(), func(ctx context.Context, in MemoryDetectContradictionsInput) (any, error) {
		if in.CreateEdges {
			return nil, &mem.Error{Msg: "create_edges: memory_detect_contradictions is read-only here and creates no relationship; record a contradiction with memory_relate (relation_type contradicts)"}
		}
		th := tools.Or(in.SimilarityThreshold, mem.DefaultContradictionThreshold)
		cs, analyzed, err := d.Memories.DetectContradictions(ctx, in.MemoryID, in.Namespace, th)
		if err != nil {
			return nil, err
		}
		return MemoryDetectContradictionsResponse{Contradictions: pairs(cs), Count: len(cs), Analyzed: analyzed, Threshold: th}, nil
	})
}
