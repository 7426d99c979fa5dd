package memory

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
	mem "github.com/vaultgraph/vaultgraph/memory"
)

// CandidateView is one memory checked by memory_check_supersedes.
type CandidateView struct {
	BriefMemory
	Similarity float64 `json:"similarity"`
	Supersedes bool    `json:"supersedes"`
	Reason     string  `json:"reason"`
}

// MemoryCheckSupersedesResponse is memory_check_supersedes' data.
type MemoryCheckSupersedesResponse struct {
	MemoryID      string          `json:"memory_id"`
	Supersedes    bool            `json:"supersedes"`
	SupersededIDs []string        `json:"superseded_ids"`
	Candidates    []CandidateView `json:"candidates"`
	Threshold     float64         `json:"threshold"`
}

// MemoryCheckSupersedesHandler answers memory_check_supersedes.
func MemoryCheckSupersedesHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), MemoryCheckSupersedesSpec(), func(ctx context.Context, in MemoryCheckSupersedesInput) (any, error) {
		if in.CreateEdge {
			return nil, &mem.Error{Msg: "create_edge: memory_check_supersedes is read-only here and creates no relationship; record a supersession with memory_relate (relation_type supersedes)"}
		}
		th := tools.Or(in.SimilarityThreshold, mem.DefaultSupersedeThreshold)
		m, cs, err := d.Memories.CheckSupersedes(ctx, in.MemoryID, in.TargetID, th)
		if err != nil {
			return nil, err
		}
		out := MemoryCheckSupersedesResponse{MemoryID: m.ID, SupersededIDs: []string{}, Candidates: make([]CandidateView, len(cs)), Threshold: th}
		for i, c := range cs {
			out.Candidates[i] = CandidateView{BriefMemory: brief(c.Memory), Similarity: c.Similarity, Supersedes: c.Supersedes, Reason: c.Reason}
			if c.Supersedes {
				out.Supersedes = true
				out.SupersededIDs = append(out.SupersededIDs, c.Memory.ID)
			}
		}
		return out, nil
	})
}
