package tools

import (
	"encoding/json"
	"fmt"
)

// PortableSchema rewrites a JSON Schema for the clients that reject a
// "type" given as an array (["null","array"], ["string","number"]), as the
// MCP Inspector's --strict mode warns: each such type becomes an anyOf of
// one schema per type, the same set of values. The keywords that apply to
// one type only (items, properties, enum...) go with the branch of that
// type; the rest (description, default) stay beside the anyOf. raw that is
// not a JSON object is returned as is.
func PortableSchema(raw []byte) []byte {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return raw
	}
	v = portable(v)
	out, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("tools: portable schema: %v", err))
	}
	return out
}

// typeKeywords are the keywords that constrain one type's values.
var typeKeywords = map[string]string{
	"items": "array", "minItems": "array", "maxItems": "array", "uniqueItems": "array", "prefixItems": "array",
	"properties": "object", "required": "object", "additionalProperties": "object", "minProperties": "object", "maxProperties": "object",
	"minLength": "string", "maxLength": "string", "pattern": "string", "format": "string",
	"minimum": "number", "maximum": "number", "exclusiveMinimum": "number", "exclusiveMaximum": "number", "multipleOf": "number",
}

func portable(v any) any {
	switch s := v.(type) {
	case map[string]any:
		for k, sub := range s {
			s[k] = portable(sub)
		}
		types, ok := s["type"].([]any)
		if !ok {
			return s
		}
		delete(s, "type")
		var branches []any
		for _, t := range types {
			name, _ := t.(string)
			b := map[string]any{"type": name}
			for k, of := range typeKeywords {
				if val, ok := s[k]; ok && (of == name || (of == "number" && name == "integer")) {
					b[k] = val
				}
			}
			branches = append(branches, b)
		}
		for k := range typeKeywords {
			delete(s, k)
		}
		if len(branches) == 1 {
			for k, val := range branches[0].(map[string]any) {
				s[k] = val
			}
			return s
		}
		s["anyOf"] = branches
		return s
	case []any:
		for i, sub := range s {
			s[i] = portable(sub)
		}
	}
	return v
}
