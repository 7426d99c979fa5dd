package docindex

import (
	"context"
	"errors"
	"math"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/docindex"
	"github.com/vaultgraph/vaultgraph/tools"
	"github.com/vaultgraph/vaultgraph/tools/envelope"
)

// handle builds a tool handler around run: arguments are checked against
// spec's published input schema and decoded into In; run's data goes into
// the success envelope and any error into the failure envelope. Handlers
// never return a Go error.
func handle[In any](d Deps, spec mcp.Tool, run func(ctx context.Context, in In) (any, error)) server.ToolHandlerFunc {
	args := tools.MustArguments(spec)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		if err := args.Decode(req, &in); err != nil {
			return envelope.Fail(err.Error()), nil
		}
		out, err := run(ctx, in)
		if err != nil {
			return envelope.Fail(d.message(ctx, spec.Name, err)), nil
		}
		return envelope.OK(out), nil
	}
}

// message maps an error to the text the model sees: the spec's message for
// errors the client can act on, a fixed sentence (and one log line with
// the cause) for a failing store or embedding service.
func (d Deps) message(ctx context.Context, tool string, err error) string {
	var de *docindex.Error
	if errors.As(err, &de) {
		return de.Msg
	}
	var ae *core.ArgumentError
	if errors.As(err, &ae) {
		return ae.Msg
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "Request cancelled or timed out"
	}
	d.logger().ErrorContext(ctx, "document tool failed", "tool", tool, "err", err)
	if core.IsProviderError(err) {
		return "Document index unavailable: the store or the embedding service failed; try again later"
	}
	return "Internal error in " + tool
}

// Result is one search result (spec 004's search response).
type Result struct {
	ID        string         `json:"id"`
	Content   string         `json:"content"`
	Score     float64        `json:"score"`
	Namespace string         `json:"namespace"`
	DocType   string         `json:"doc_type"`
	Metadata  map[string]any `json:"metadata"`
}

// results shapes hits. Chunk metadata: source_file, chunk_index,
// header_path always; page for PDF chunks; note_id for chunks of a vault
// note. Scores are rounded to 4 decimals.
func results(hits []docindex.Hit) []Result {
	out := make([]Result, len(hits))
	for i, h := range hits {
		md := h.Metadata
		if h.DocType != docindex.DocTypeMemory {
			md = map[string]any{"source_file": h.SourceFile, "chunk_index": h.ChunkIndex, "header_path": h.HeaderPath}
			if h.Page > 0 {
				md["page"] = h.Page
			}
			if h.NoteID != "" {
				md["note_id"] = h.NoteID
			}
		}
		if md == nil {
			md = map[string]any{}
		}
		out[i] = Result{ID: h.ID, Content: h.Content, Score: math.Round(h.Score*1e4) / 1e4, Namespace: h.Namespace, DocType: h.DocType, Metadata: md}
	}
	return out
}
