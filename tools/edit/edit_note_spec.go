package edit

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/noteedit"
	"github.com/vaultgraph/vaultgraph/tools"
)

// EditNoteName is edit_note's name.
const EditNoteName = "edit_note"

// EditNoteInput is edit_note's arguments; nil means "not given".
type EditNoteInput struct {
	ID              string          `json:"id"`
	Operation       string          `json:"operation"`
	Heading         *string         `json:"heading"`
	Content         *string         `json:"content"`
	OldText         *string         `json:"old_text"`
	NewText         *string         `json:"new_text"`
	ExpectedCount   *tools.Int      `json:"expected_count"`
	Key             *string         `json:"key"`
	Value           json.RawMessage `json:"value"`
	ExpectedVersion *string         `json:"expected_version"`
}

// EditNoteSpec is edit_note's contract. The description is the manual a
// model reads on every turn: it names each operation with the arguments
// it takes, and nothing else.
func EditNoteSpec() mcp.Tool {
	return mcp.NewTool(EditNoteName,
		mcp.WithDescription("Change part of a note. operation: append/prepend content to heading's section (none: the note); "+
			"replace_section (its text becomes content); "+
			"insert_after (content, from its own heading line, becomes a section after heading's); "+
			"replace_text (old_text, found exactly expected_count times, becomes new_text); set_frontmatter (key, value); "+
			"remove_frontmatter (key). Returns a diff and version; "+
			"expected_version gives VERSION_CONFLICT if the note changed."),
		mcp.WithString("id", mcp.Required(),
			mcp.Description("Note ID (its path)")),
		mcp.WithString("operation", mcp.Required(),
			mcp.Enum(operations()...), mcp.Description("What to change")),
		mcp.WithString("heading", mcp.Description("Section: '## Today', 'Today' or path 'Projects > Q1'")),
		mcp.WithString("content", mcp.Description("Markdown to add, or the section's new text")),
		mcp.WithString("old_text", mcp.Description("Exact text to replace")),
		mcp.WithString("new_text", mcp.Description("Replacement (may be empty)")),
		mcp.WithInteger("expected_count", mcp.Min(1), mcp.DefaultNumber(1),
			mcp.Description("Times old_text must occur")),
		mcp.WithString("key", mcp.Description("Frontmatter property")),
		mcp.WithAny("value", mcp.Description("Its new value, any JSON"), anyJSON),
		mcp.WithString("expected_version",
			mcp.Description("From an earlier edit_note or read_note")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.OutputSchema[EditNoteResponse](),
		// Destructive: replace_section, replace_text and
		// remove_frontmatter remove text. Not idempotent: append twice
		// adds twice.
		tools.Annotations("Edit part of a note", false, true, false),
	)
}

func operations() []string {
	out := make([]string, len(noteedit.Operations))
	for i, op := range noteedit.Operations {
		out[i] = string(op)
	}
	return out
}

// anyJSON types a parameter that takes any JSON value by listing every
// type: clients build no input for a parameter without a type (the MCP
// Inspector's --strict warns), and a type array is rejected by others.
func anyJSON(schema map[string]any) {
	var types []any
	for _, t := range []string{"string", "number", "boolean", "object", "array", "null"} {
		types = append(types, map[string]any{"type": t})
	}
	schema["anyOf"] = types
}
