package memory

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/core"
	mem "github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryListName is memory_list's name.
const MemoryListName = "memory_list"

// Paging of memory_list.
const (
	DefaultListLimit = 20
	MaxListLimit     = 1000 // as the original server
)

// MemoryListInput is memory_list's arguments.
type MemoryListInput struct {
	FiltersView
	OrderBy *string `json:"order_by"`
	Order   *string `json:"order"`
	// Descending is the original server's order: true is desc.
	Descending *bool      `json:"descending"`
	Limit      *tools.Int `json:"limit"`
	Offset     *tools.Int `json:"offset"`
}

// MemoryListSpec is memory_list's contract (spec 004 names it; the shape
// is vaultgraph's, see docs/MEMORY.md).
func MemoryListSpec() mcp.Tool {
	opts := []mcp.ToolOption{mcp.WithDescription("List memories with pagination: the filters of memory_count, ordered by order_by (ties by id), " +
		"limit per page from offset. total is the number of memories the filters select; while has_more, call again with offset + limit.")}
	opts = append(opts, filterOptions()...)
	opts = append(opts,
		mcp.WithString("order_by", mcp.Enum(mem.Orders...), mcp.DefaultString(string(core.OrderCreatedAt)), mcp.Description("Field to order by")),
		mcp.WithString("order", mcp.Enum("asc", "desc"), mcp.DefaultString("desc"), mcp.Description("asc or desc")),
		mcp.WithBoolean("descending", mcp.Description("Same as order: true for desc, false for asc (the original server's parameter)")),
		mcp.WithInteger("limit", mcp.DefaultNumber(DefaultListLimit), mcp.Min(1), mcp.Max(MaxListLimit), mcp.Description("Maximum memories per page")),
		mcp.WithInteger("offset", mcp.DefaultNumber(0), mcp.Min(0), mcp.Description("Number of memories to skip")),
		mcp.WithSchemaAdditionalProperties(false), tools.Annotations("List memories", true, false, true))
	return mcp.NewTool(MemoryListName, opts...)
}
