package docindex

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// IndexDirectoryName is the tool's name.
const IndexDirectoryName = "index_directory"

// IndexDirectoryInput is index_directory's arguments.
type IndexDirectoryInput struct {
	DirPath   string  `json:"dir_path"`
	Recursive *bool   `json:"recursive"`
	Namespace *string `json:"namespace"`
	// AsyncMode is the original server's: it answered before the
	// embeddings were done. Accepted; vaultgraph always answers when the
	// files are indexed (and searchable).
	AsyncMode *bool `json:"async_mode"`
}

// FailedFile is a file index_directory could not index.
type FailedFile struct {
	File  string `json:"file"`
	Error string `json:"error"`
}

// IndexDirectoryOutput is index_directory's data.
type IndexDirectoryOutput struct {
	FilesIndexed      int          `json:"files_indexed"`
	TotalChunks       int          `json:"total_chunks"`
	FailedFiles       []FailedFile `json:"failed_files"`
	SkippedDuplicates int          `json:"skipped_duplicates"`
}

// IndexDirectorySpec is index_directory's contract (spec 004).
func IndexDirectorySpec() mcp.Tool {
	return mcp.NewTool(IndexDirectoryName,
		mcp.WithDescription("Batch index multiple documents from a directory with deduplication. Indexes every .md, .markdown, .txt, .py and .pdf file; "+
			"hidden files and folders and symbolic links are skipped. Files already indexed with the same SHA-256 are skipped (skipped_duplicates); "+
			"a file that fails is listed in failed_files and the others go on. Only directories inside the allowed document roots can be read."),
		mcp.WithString("dir_path", mcp.Required(),
			mcp.Description("Directory path to scan for documents")),
		mcp.WithBoolean("recursive", mcp.DefaultBool(true),
			mcp.Description("Scan subdirectories recursively")),
		mcp.WithString("namespace", mcp.DefaultString("default"),
			mcp.Description("Namespace for organizing documents")),
		mcp.WithBoolean("async_mode", mcp.DefaultBool(true),
			mcp.Description("Accepted for compatibility; the answer always comes once the files are indexed and searchable")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Index a directory of documents", false, false, true),
	)
}
