package entities

import (
	"embed"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/tools"
)

// schemas holds spec 003's input and output schemas, copied verbatim:
// <tool>.input.json and <tool>.output.json.
//
//go:embed schemas/*.json
var schemas embed.FS

// Schema returns the spec's schema of tool, kind "input" or "output".
func Schema(tool, kind string) json.RawMessage {
	raw, err := schemas.ReadFile("schemas/" + tool + "." + kind + ".json")
	if err != nil {
		panic(fmt.Sprintf("entities: no %s schema for %s", kind, tool)) // embedded: a test covers every tool
	}
	return raw
}

// annotations: every tool of the toolset only reads the project's graph.
func annotations(title string) mcp.ToolOption {
	return mcp.WithToolAnnotation(mcp.ToolAnnotation{
		Title:           title,
		ReadOnlyHint:    mcp.ToBoolPtr(true),
		DestructiveHint: mcp.ToBoolPtr(false),
		IdempotentHint:  mcp.ToBoolPtr(true),
		OpenWorldHint:   mcp.ToBoolPtr(false),
	})
}

// paramHelp describes each parameter for the model; the published input
// schema is the spec's with these descriptions added.
var paramHelp = map[string]string{
	"projectId":         "Project UUID, from list_projects",
	"query":             "Text matched case-insensitively as a substring of title, slug and summary (1-256 characters)",
	"entityTypes":       "Only entities of these types (at most 4, no repeats); omitted: every type",
	"limit":             "Most entities returned, 1-50 (default 20); totalCount counts every match",
	"entityId":          "Entity UUID, from search_entities or get_entity_graph",
	"depth":             "Relationship steps from the entity, 1 or 2 (default 1)",
	"relationshipTypes": "Only follow and return these relationship types (no repeats); omitted or empty: every type",
}

// inputSchema is the spec's input schema of tool with paramHelp's
// descriptions on its properties.
func inputSchema(tool string) json.RawMessage {
	var schema map[string]any
	if err := json.Unmarshal(Schema(tool, "input"), &schema); err != nil {
		panic(fmt.Sprintf("entities: input schema of %s: %v", tool, err))
	}
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		if prop, ok := p.(map[string]any); ok && paramHelp[name] != "" {
			prop["description"] = paramHelp[name]
		}
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("entities: input schema of %s: %v", tool, err))
	}
	return raw
}

// newSpec builds a tool with the spec's schemas.
func newSpec(name, title, description string) mcp.Tool {
	tool := mcp.NewToolWithRawSchema(name, description, inputSchema(name))
	for _, opt := range []mcp.ToolOption{mcp.WithRawOutputSchema(tools.PortableSchema(Schema(name, "output"))), annotations(title)} {
		opt(&tool)
	}
	return tool
}
