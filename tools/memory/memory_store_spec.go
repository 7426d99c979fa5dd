package memory

import (
	"github.com/mark3labs/mcp-go/mcp"
	mem "github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryStoreName is memory_store's name.
const MemoryStoreName = "memory_store"

// MemoryStoreInput is memory_store's arguments.
type MemoryStoreInput struct {
	Content    string         `json:"content"`
	MemoryType *string        `json:"memory_type"`
	Namespace  *string        `json:"namespace"`
	Importance *float64       `json:"importance"`
	Metadata   map[string]any `json:"metadata"`
}

// MemoryStoreSpec is memory_store's contract (spec 004).
func MemoryStoreSpec() mcp.Tool {
	return mcp.NewTool(MemoryStoreName,
		mcp.WithDescription("Store a new memory with semantic indexing. New memories start at confidence 0.3; memory_validate and memory_outcome move it, and at 0.9 a memory becomes a golden rule. "+
			"Identical content in the same namespace is not stored twice: the answer is duplicate: true with the existing id. "+
			"Namespaces: global (all projects), default, or project:{name}."),
		mcp.WithString("content", mcp.Required(), mcp.Description("The memory content text")),
		mcp.WithString("memory_type", mcp.Enum(mem.StoreTypes...), mcp.DefaultString(mem.TypeSession),
			mcp.Description("Type of memory")),
		mcp.WithString("namespace", mcp.DefaultString(mem.NamespaceGlobal), mcp.Description("Scope of the memory")),
		mcp.WithNumber("importance", mcp.DefaultNumber(0.5), mcp.Min(0.0), mcp.Max(1.0),
			mcp.Description("Importance score 0.0-1.0")),
		mcp.WithObject("metadata", mcp.Description("Optional additional metadata")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Store a memory", false, false, true),
	)
}
