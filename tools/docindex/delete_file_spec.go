package docindex

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// DeleteFileName is the tool's name.
const DeleteFileName = "delete_file"

// DeleteFileInput is delete_file's arguments.
type DeleteFileInput struct {
	SourceFile string `json:"source_file"`
}

// DeleteFileOutput is delete_file's data; source_file is the path as
// stored (absolute).
type DeleteFileOutput struct {
	DeletedCount int    `json:"deleted_count"`
	SourceFile   string `json:"source_file"`
}

// DeleteFileSpec is delete_file's contract (spec 004).
func DeleteFileSpec() mcp.Tool {
	return mcp.NewTool(DeleteFileName,
		mcp.WithDescription("Delete all chunks from a specific source file. The path is taken as index_file takes it (a relative path starts at the vault); the file itself is not touched and need not exist. A file with no chunks gives deleted_count 0."),
		mcp.WithString("source_file", mcp.Required(),
			mcp.Description("Source file path to delete chunks for")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Delete a file's chunks", false, true, true),
	)
}
