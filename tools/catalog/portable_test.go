package catalog

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/tools"
)

// schemaProblems walks a JSON Schema and lists what common clients reject
// or mishandle (the MCP Inspector's --strict warnings): a "type" that is an
// array (["null","array"]), and, when typed is set, a property with no type
// at all (an argument a client cannot build a form field for).
func schemaProblems(path string, v any, typed bool, out *[]string) {
	switch s := v.(type) {
	case map[string]any:
		if ty, ok := s["type"]; ok {
			if _, isArr := ty.([]any); isArr {
				*out = append(*out, fmt.Sprintf("%s: type is an array %v", path, ty))
			}
		}
		if props, ok := s["properties"].(map[string]any); ok {
			for name, p := range props {
				pm, _ := p.(map[string]any)
				if typed && pm != nil {
					_, hasType := pm["type"]
					_, hasAny := pm["anyOf"]
					_, hasOne := pm["oneOf"]
					_, hasEnum := pm["enum"]
					if !hasType && !hasAny && !hasOne && !hasEnum {
						*out = append(*out, fmt.Sprintf("%s.%s: no type", path, name))
					}
				}
				schemaProblems(path+"."+name, p, typed, out)
			}
		}
		for _, k := range []string{"items", "additionalProperties"} {
			if sub, ok := s[k].(map[string]any); ok {
				schemaProblems(path+"."+k, sub, typed, out)
			}
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if subs, ok := s[k].([]any); ok {
				for i, sub := range subs {
					schemaProblems(fmt.Sprintf("%s.%s[%d]", path, k, i), sub, typed, out)
				}
			}
		}
		if defs, ok := s["$defs"].(map[string]any); ok {
			for name, sub := range defs {
				schemaProblems(path+".$defs."+name, sub, typed, out)
			}
		}
	}
}

// TestSchemasArePortable: no tool's input or output schema has a type
// array, and every input property is typed, for every tool of every
// toolset.
func TestSchemasArePortable(t *testing.T) {
	var problems []string
	for _, tool := range Tools(Options{Embeddings: true}) {
		in, err := tools.InputSchemaJSON(tool.Tool)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(in, &v); err != nil {
			t.Fatal(err)
		}
		schemaProblems(tool.Tool.Name+" input", v, true, &problems)
		if out := tools.OutputSchemaJSON(tool.Tool); out != nil {
			v = nil
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatal(err)
			}
			schemaProblems(tool.Tool.Name+" output", v, false, &problems)
		}
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		t.Errorf("%d schema portability problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}
