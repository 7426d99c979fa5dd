package docindex

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// GetIndexStatsHandler answers get_index_stats.
func GetIndexStatsHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), GetIndexStatsSpec(), func(ctx context.Context, _ GetIndexStatsInput) (any, error) {
		st, err := d.Index.Stats(ctx)
		if err != nil {
			return nil, err
		}
		return GetIndexStatsOutput{
			TotalDocuments: st.TotalDocuments, UniqueSources: st.UniqueSources, SourceFiles: st.SourceFiles,
			Namespaces: st.Namespaces, MemoryCount: st.MemoryCount, GoldenRuleCount: st.GoldenRuleCount,
		}, nil
	})
}
