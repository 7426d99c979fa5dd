package kb

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Specs returns the contract of every tool of the toolset, in spec order;
// the snapshot tests walk it.
func Specs() []mcp.Tool {
	return []mcp.Tool{
		ListKnowledgeBasesSpec(), AddKnowledgeBaseSpec(), UpdateKnowledgeBaseSpec(), AddKnowledgeBaseFolderConstraintSpec(),
		CreateNoteSpec(), UpdateNoteSpec(), AppendNoteSpec(), MoveNoteSpec(), DeleteNoteSpec(),
		ReadNoteSpec(), ListNotesSpec(), ValidateNoteSpec(),
	}
}

// Tools returns the toolset's tools for d, in spec order.
func Tools(d Deps) []tools.Tool {
	var out []tools.Tool
	add := func(spec mcp.Tool, h server.ToolHandlerFunc) {
		out = append(out, tools.Tool{Toolset: tools.ToolsetKB, Tool: spec, Handler: h})
	}
	add(ListKnowledgeBasesSpec(), ListKnowledgeBasesHandler(d))
	add(AddKnowledgeBaseSpec(), AddKnowledgeBaseHandler(d))
	add(UpdateKnowledgeBaseSpec(), UpdateKnowledgeBaseHandler(d))
	add(AddKnowledgeBaseFolderConstraintSpec(), AddKnowledgeBaseFolderConstraintHandler(d))
	add(CreateNoteSpec(), CreateNoteHandler(d))
	add(UpdateNoteSpec(), UpdateNoteHandler(d))
	add(AppendNoteSpec(), AppendNoteHandler(d))
	add(MoveNoteSpec(), MoveNoteHandler(d))
	add(DeleteNoteSpec(), DeleteNoteHandler(d))
	add(ReadNoteSpec(), ReadNoteHandler(d))
	add(ListNotesSpec(), ListNotesHandler(d))
	add(ValidateNoteSpec(), ValidateNoteHandler(d))
	return out
}
