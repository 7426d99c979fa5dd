package graph

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// WarningsKey is the field that carries warnings (spec 000).
const WarningsKey = "_warnings"

// withWarnings gives each call a collector of its own (core.WithCallWarnings)
// and attaches what it collected to a successful answer: the problems of
// what this call touched (a note written with a broken link, a frontmatter
// error), at most core.MaxCallWarnings. Problems the watcher finds in the
// vault are not for the model: they are logged and listed by `vaultgraph
// check` (docs/DECISIONS.md, "Warnings"). Over HTTP one client never
// receives another's warnings.
//
// An object answer gets a "_warnings" field, in its text and in its
// structuredContent. An array or null answer keeps its exact shape in the
// first text content, and the warnings follow as a second text content
// {"_warnings": [...]}: wrapping the array would break the spec's shape.
func withWarnings(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, collected := core.WithCallWarnings(ctx)
		res, err := next(ctx, req)
		if err != nil || res == nil || res.IsError {
			return res, err
		}
		warnings := collected.List()
		if len(warnings) == 0 {
			return res, nil
		}
		_, list := mustJSON(warnings)
		if obj, ok := res.StructuredContent.(json.RawMessage); ok && len(res.Content) > 0 {
			merged := addField(obj, WarningsKey, list)
			res.StructuredContent = merged
			res.Content[0] = mcp.NewTextContent(string(merged))
			return res, nil
		}
		text, _ := mustJSON(map[string]json.RawMessage{WarningsKey: list})
		res.Content = append(res.Content, mcp.NewTextContent(text))
		return res, nil
	}
}

// addField is tools.AddJSONField.
func addField(obj json.RawMessage, key string, value json.RawMessage) json.RawMessage {
	return tools.AddJSONField(obj, key, value)
}
