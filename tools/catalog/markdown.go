package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/internal/toolset"
	"github.com/vaultgraph/vaultgraph/tools"
)

// property is the part of a JSON Schema property the reference shows.
type property struct {
	Type        any               `json:"type"`
	Description string            `json:"description"`
	Default     any               `json:"default"`
	Enum        []any             `json:"enum"`
	Minimum     *float64          `json:"minimum"`
	Maximum     *float64          `json:"maximum"`
	MinLength   *int              `json:"minLength"`
	MaxLength   *int              `json:"maxLength"`
	MinItems    *int              `json:"minItems"`
	MaxItems    *int              `json:"maxItems"`
	Pattern     string            `json:"pattern"`
	Items       *property         `json:"items"`
	Properties  map[string]any    `json:"properties"`
	AnyOf       []json.RawMessage `json:"anyOf"`
}

type objectSchema struct {
	Properties map[string]property `json:"properties"`
	Required   []string            `json:"required"`
}

// Markdown is docs/TOOLS.md: every tool of all, one section per toolset in
// the order of internal/toolset, the toolsets' defaults and descriptions
// from there too. Nothing in it is written by hand.
func Markdown(all []tools.Tool) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# Tools\n\n")
	b.WriteString("<!-- Generated from the tool specs (tools/<toolset>/*_spec.go) by `make docs`; do not edit.\n")
	b.WriteString("     TestToolsDocIsCurrent (tools/catalog) fails when this file and the specs differ. -->\n\n")
	b.WriteString("Every tool vaultgraph can serve, by toolset, as `tools/list` publishes it: name, title,\n")
	b.WriteString("description, each parameter with its type, default and limits, the annotations and, where a\n")
	b.WriteString("tool declares one, its output schema. `vaultgraph tools` lists the tools of your\n")
	b.WriteString("configuration; `--toolsets`, `--tools`, `--exclude-tools` and `--read-only` choose them\n")
	b.WriteString("(README, \"Configuration\"). Tools marked *needs embeddings* are offered only with an\n")
	b.WriteString("embedding provider (the default, the built-in model).\n\n")

	byToolset := map[string][]tools.Tool{}
	for _, t := range all {
		byToolset[t.Toolset] = append(byToolset[t.Toolset], t)
	}
	withoutEmb := map[string]bool{}
	for _, t := range Tools(Options{}) {
		withoutEmb[t.Toolset+"/"+t.Tool.Name] = true
	}

	b.WriteString("| toolset | default | tools | what it holds |\n|---|---|---|---|\n")
	for _, ts := range toolset.List {
		def := "off"
		if ts.Default {
			def = "**on**"
		}
		fmt.Fprintf(&b, "| [`%s`](#toolset-%s) | %s | %d | %s |\n", ts.ID, ts.ID, def, len(byToolset[ts.ID]), ts.Description)
	}
	for _, ts := range toolset.List {
		list := byToolset[ts.ID]
		def := "off by default"
		if ts.Default {
			def = "on by default"
		}
		fmt.Fprintf(&b, "\n## Toolset `%s`\n\n%s (%s). Tools: ", ts.ID, capitalize(ts.Description), def)
		for i, t := range list {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "[`%s`](#%s-%s)", t.Tool.Name, ts.ID, strings.ReplaceAll(t.Tool.Name, "_", "-"))
		}
		b.WriteString(".\n")
		for _, t := range list {
			if err := writeTool(&b, t, !withoutEmb[t.Toolset+"/"+t.Tool.Name]); err != nil {
				return nil, err
			}
		}
	}
	return b.Bytes(), nil
}

func writeTool(b *bytes.Buffer, t tools.Tool, needsEmbeddings bool) error {
	tool := t.Tool
	title := tool.Title
	if title == "" {
		title = tool.Annotations.Title
	}
	fmt.Fprintf(b, "\n<a id=\"%s-%s\"></a>\n### `%s` — %s\n\n", t.Toolset, strings.ReplaceAll(tool.Name, "_", "-"), tool.Name, title)
	b.WriteString(strings.TrimSpace(tool.Description) + "\n\n")
	fmt.Fprintf(b, "*%s*", annotationLine(tool))
	if needsEmbeddings {
		b.WriteString(" · *needs embeddings*")
	}
	b.WriteString("\n\n")

	raw, err := tools.InputSchemaJSON(tool)
	if err != nil {
		return err
	}
	var in objectSchema
	if err := json.Unmarshal(raw, &in); err != nil {
		return fmt.Errorf("%s: input schema: %w", tool.Name, err)
	}
	if len(in.Properties) == 0 {
		b.WriteString("No parameters.\n")
	} else {
		b.WriteString("| parameter | type | required | default | limits | description |\n|---|---|---|---|---|---|\n")
		names := make([]string, 0, len(in.Properties))
		for n := range in.Properties {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool {
			ri, rj := contains(in.Required, names[i]), contains(in.Required, names[j])
			if ri != rj {
				return ri
			}
			return names[i] < names[j]
		})
		for _, n := range names {
			p := in.Properties[n]
			req := ""
			if contains(in.Required, n) {
				req = "yes"
			}
			def := ""
			if p.Default != nil {
				def = "`" + compact(p.Default) + "`"
			}
			fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s | %s |\n", n, typeOf(p), req, def, limits(p), cell(p.Description))
		}
	}

	out := tool.RawOutputSchema
	if len(out) == 0 && tool.OutputSchema.Type != "" {
		if out, err = json.Marshal(tool.OutputSchema); err != nil {
			return err
		}
	}
	if len(out) > 0 {
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, out, "", "  "); err != nil {
			return fmt.Errorf("%s: output schema: %w", tool.Name, err)
		}
		b.WriteString("\n<details><summary>Output schema (<code>structuredContent</code>)</summary>\n\n```json\n")
		b.Write(pretty.Bytes())
		b.WriteString("\n```\n\n</details>\n")
	}
	return nil
}

// annotationLine says the tool's hints in words.
func annotationLine(tool mcp.Tool) string {
	a := tool.Annotations
	is := func(p *bool) bool { return p != nil && *p }
	var parts []string
	switch {
	case is(a.ReadOnlyHint):
		parts = append(parts, "read-only")
	case is(a.DestructiveHint):
		parts = append(parts, "writes, destructive")
	default:
		parts = append(parts, "writes, not destructive")
	}
	if is(a.IdempotentHint) {
		parts = append(parts, "idempotent")
	}
	if is(a.OpenWorldHint) {
		parts = append(parts, "open world")
	} else {
		parts = append(parts, "closed world")
	}
	return strings.Join(parts, " · ")
}

func typeOf(p property) string {
	t := ""
	switch v := p.Type.(type) {
	case string:
		t = v
	case []any:
		var s []string
		for _, x := range v {
			s = append(s, fmt.Sprint(x))
		}
		t = strings.Join(s, " or ")
	}
	if t == "" && len(p.AnyOf) > 0 {
		t = "any of several"
	}
	if t == "array" && p.Items != nil {
		if it := typeOf(*p.Items); it != "" {
			t = "array of " + it
		}
	}
	if t == "" {
		t = "any"
	}
	return t
}

func limits(p property) string {
	var l []string
	num := func(f float64) string { return strings.TrimSuffix(fmt.Sprintf("%g", f), ".0") }
	if p.Minimum != nil && p.Maximum != nil {
		l = append(l, num(*p.Minimum)+"–"+num(*p.Maximum))
	} else if p.Minimum != nil {
		l = append(l, "≥ "+num(*p.Minimum))
	} else if p.Maximum != nil {
		l = append(l, "≤ "+num(*p.Maximum))
	}
	if p.MinLength != nil && *p.MinLength > 0 {
		l = append(l, fmt.Sprintf("≥ %d chars", *p.MinLength))
	}
	if p.MaxLength != nil {
		l = append(l, fmt.Sprintf("≤ %d chars", *p.MaxLength))
	}
	if p.MinItems != nil && *p.MinItems > 0 {
		l = append(l, fmt.Sprintf("≥ %d items", *p.MinItems))
	}
	if p.MaxItems != nil {
		l = append(l, fmt.Sprintf("≤ %d items", *p.MaxItems))
	}
	if len(p.Enum) > 0 {
		var e []string
		for _, v := range p.Enum {
			e = append(e, "`"+compact(v)+"`")
		}
		l = append(l, "one of "+strings.Join(e, ", "))
	}
	if p.Pattern != "" {
		l = append(l, "pattern `"+strings.ReplaceAll(p.Pattern, "|", `\|`)+"`")
	}
	if p.Items != nil {
		if il := limits(*p.Items); il != "" {
			l = append(l, "each: "+il)
		}
	}
	return strings.Join(l, "; ")
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.ReplaceAll(string(b), "|", `\|`)
}

// cell makes text safe inside a table cell.
func cell(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "|", `\|`)
	return strings.ReplaceAll(s, "\n", "<br>")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
