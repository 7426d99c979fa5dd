package memory

import (
	"context"
	"math"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
	mem "github.com/vaultgraph/vaultgraph/memory"
)

// HistorySummary sums up the matching events. success_rate is the share
// of positive validations and outcomes (null when there is none);
// current_confidence and memory_type describe the memory when memory_id
// was given (null otherwise).
type HistorySummary struct {
	TotalEvents       int      `json:"total_events"`
	Validations       int      `json:"validations"`
	Applications      int      `json:"applications"`
	Outcomes          int      `json:"outcomes"`
	Positive          int      `json:"positive"`
	Negative          int      `json:"negative"`
	SuccessRate       *float64 `json:"success_rate"`
	Promotions        int      `json:"promotions"`
	CurrentConfidence *float64 `json:"current_confidence"`
	MemoryType        *string  `json:"memory_type"`
}

// ValidationHistoryResponse is validation_history's data.
type ValidationHistoryResponse struct {
	MemoryID *string        `json:"memory_id"`
	Events   []EventView    `json:"events"`
	Count    int            `json:"count"`
	Summary  HistorySummary `json:"summary"`
}

// ValidationHistoryHandler answers validation_history.
func ValidationHistoryHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), ValidationHistorySpec(), func(ctx context.Context, in ValidationHistoryInput) (any, error) {
		evs, m, err := d.Memories.History(ctx, in.MemoryID, in.EventType, 0)
		if err != nil {
			return nil, err
		}
		var sum HistorySummary
		sum.TotalEvents = len(evs)
		for _, ev := range evs {
			switch ev.Kind {
			case mem.EventValidate:
				sum.Validations++
			case mem.EventApply:
				sum.Applications++
			case mem.EventOutcome:
				sum.Outcomes++
			}
			if ev.Positive != nil {
				if *ev.Positive {
					sum.Positive++
				} else {
					sum.Negative++
				}
			}
			if ev.Promoted {
				sum.Promotions++
			}
		}
		if n := sum.Positive + sum.Negative; n > 0 {
			r := math.Round(float64(sum.Positive)/float64(n)*10000) / 10000
			sum.SuccessRate = &r
		}
		if m != nil {
			c := mem.ToFloat(m.Confidence)
			sum.CurrentConfidence, sum.MemoryType = &c, &m.Type
		}
		limit := tools.IntOr(in.Limit, DefaultHistoryLimit)
		if len(evs) > limit {
			evs = evs[len(evs)-limit:]
		}
		out := ValidationHistoryResponse{MemoryID: nullable(in.MemoryID), Events: make([]EventView, len(evs)), Count: len(evs), Summary: sum}
		for i, ev := range evs {
			out.Events[i] = eventView(ev)
		}
		return out, nil
	})
}
