package docindex

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// IndexFileName is the tool's name.
const IndexFileName = "index_file"

// IndexFileInput is index_file's arguments.
type IndexFileInput struct {
	FilePath  string  `json:"file_path"`
	Namespace *string `json:"namespace"`
}

// IndexFileOutput is index_file's data. SkippedDuplicate (an addition to
// spec 004) is true when the file was already indexed with the same
// content and namespace: nothing was created and ChunkIDs are its chunks.
type IndexFileOutput struct {
	ChunksCreated    int      `json:"chunks_created"`
	SourceFile       string   `json:"source_file"`
	Namespace        string   `json:"namespace"`
	ChunkIDs         []string `json:"chunk_ids"`
	SkippedDuplicate bool     `json:"skipped_duplicate"`
}

// IndexFileSpec is index_file's contract (spec 004).
func IndexFileSpec() mcp.Tool {
	return mcp.NewTool(IndexFileName,
		mcp.WithDescription("Index a single document into the vector database. Supports .md, .markdown, .txt, .py and .pdf. "+
			"Only files inside the allowed document roots (the vault, plus documents.allowed_roots) can be read; a relative path starts at the vault. "+
			"An unchanged file (same SHA-256 and namespace) is skipped; a changed one replaces its chunks."),
		mcp.WithString("file_path", mcp.Required(),
			mcp.Description("Absolute or relative path to the document")),
		mcp.WithString("namespace", mcp.DefaultString("default"),
			mcp.Description("Namespace for organizing documents")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Index a document", false, false, true),
	)
}
