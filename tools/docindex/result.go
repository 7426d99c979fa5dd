package docindex

import (
	"math"

	"github.com/vaultgraph/vaultgraph/docindex"
)

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
