package tools

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// OutputSchema declares T, a tool's answer type, as the tool's
// outputSchema. Only a tool whose every successful answer is a JSON object
// may declare one: a client of the official SDK refuses a result of such a
// tool that carries no structuredContent, so an answer that can be null or
// an array (get_node, search) must go without. The tool's error results
// carry no structuredContent either (that client validates it too).
//
// The schema is mcp-go's, generated from T (so it cannot drift from what
// the handler encodes), made lighter for the tools/list every request
// carries: no "additionalProperties": false, because answers may carry
// more than T (graph's "_warnings") and may grow new fields; no "required"
// (issue 47: it repeated every property's name, ~900 bytes of the default
// list; the schema stays true of every answer, only less strict); no
// property descriptions, the tool's description says what matters; no
// "type" arrays (PortableSchema), which some clients reject. A type mcp-go
// cannot describe panics at start: mcp-go would only print the error and
// publish no schema.
func OutputSchema[T any]() mcp.ToolOption {
	var probe mcp.Tool
	mcp.WithOutputSchema[T]()(&probe)
	if probe.OutputSchema.Type != "object" || len(probe.OutputSchema.Properties) == 0 {
		panic(fmt.Sprintf("tools: no output schema for %T", *new(T)))
	}
	raw, err := json.Marshal(probe.OutputSchema)
	if err != nil {
		panic(fmt.Sprintf("tools: output schema of %T: %v", *new(T), err))
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		panic(fmt.Sprintf("tools: output schema of %T: %v", *new(T), err))
	}
	lighten(schema)
	raw, err = json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("tools: output schema of %T: %v", *new(T), err))
	}
	return mcp.WithRawOutputSchema(PortableSchema(raw))
}

// lighten drops "additionalProperties": false and "required" everywhere
// in schema.
func lighten(schema any) {
	switch s := schema.(type) {
	case map[string]any:
		if ap, ok := s["additionalProperties"].(bool); ok && !ap {
			delete(s, "additionalProperties")
		}
		if _, ok := s["properties"]; ok {
			delete(s, "required")
		}
		for _, v := range s {
			lighten(v)
		}
	case []any:
		for _, v := range s {
			lighten(v)
		}
	}
}

// OutputSchemaJSON returns the output schema tool publishes in tools/list,
// or nil when it declares none.
func OutputSchemaJSON(tool mcp.Tool) []byte {
	if len(tool.RawOutputSchema) > 0 {
		return tool.RawOutputSchema
	}
	if tool.OutputSchema.Type == "" {
		return nil
	}
	raw, err := json.Marshal(tool.OutputSchema)
	if err != nil {
		return nil
	}
	return raw
}
