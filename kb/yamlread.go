package kb

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// timestamp is a YAML scalar that YAML resolves as a timestamp
// (2025-12-10, 2025-12-10T14:30:00Z), kept as written.
type timestamp string

// maxYAMLDepth bounds nesting (and alias chains) of decoded YAML.
const maxYAMLDepth = 64

// decodeYAML parses src as strict YAML into plain values: map[string]any,
// []any, string, int64, float64, bool, timestamp or nil. Empty input is
// nil.
func decodeYAML(src string) (any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, err
	}
	return nodeValue(&doc, 0)
}

// decodeLenientYAML is decodeYAML for files written by the Obsidian plugin
// that defined spec 002, which writes regular expressions raw between
// double quotes (pattern: "^\d{4}$"); YAML refuses "\d" there. When strict
// parsing fails, each double-quoted scalar that YAML refuses on its own is
// read as the plugin reads it, the text between the quotes taken
// literally, and parsing is tried again. Scalars YAML accepts keep their
// YAML meaning, so a properly escaped "^\\d{4}$" is also ^\d{4}$.
func decodeLenientYAML(src string) (any, error) {
	v, err := decodeYAML(src)
	if err == nil {
		return v, nil
	}
	repaired, changed := repairYAML(src)
	if !changed {
		return nil, err
	}
	if v, err2 := decodeYAML(repaired); err2 == nil {
		return v, nil
	}
	return nil, err
}

func nodeValue(n *yaml.Node, depth int) (any, error) {
	if depth > maxYAMLDepth {
		return nil, errors.New("yaml nested too deeply")
	}
	switch n.Kind {
	case 0: // empty input
		return nil, nil
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return nodeValue(n.Content[0], depth+1)
	case yaml.AliasNode:
		return nodeValue(n.Alias, depth+1)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := nodeValue(c, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a key must be a plain value", k.Line)
			}
			val, err := nodeValue(v, depth+1)
			if err != nil {
				return nil, err
			}
			out[k.Value] = val
		}
		return out, nil
	case yaml.ScalarNode:
		return scalarValue(n)
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", n.Line)
}

func scalarValue(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		err := n.Decode(&b)
		return b, err
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return i, nil
		}
		var f float64
		err := n.Decode(&f)
		return f, err
	case "!!float":
		var f float64
		err := n.Decode(&f)
		return f, err
	case "!!timestamp":
		return timestamp(n.Value), nil
	default:
		return n.Value, nil
	}
}

// yamlValueLine splits a line of block YAML into what precedes the value
// (indentation, "- ", "key: ") and the value, without trailing blanks.
var yamlValueLine = regexp.MustCompile(`^(\s*(?:-\s+)?(?:[^\s"'#\[{][^:"']*:\s+)?)(.*?)\s*$`)

// repairYAML rewrites the double-quoted scalars of src that YAML refuses
// on their own into single-quoted scalars holding the text between the
// quotes literally (see decodeLenientYAML). It handles the layouts the
// plugin writes: `key: "..."`, `- "..."` and flow lists `key: ["...", ...]`.
func repairYAML(src string) (string, bool) {
	lines := strings.Split(src, "\n")
	changed := false
	for i, line := range lines {
		cr := strings.HasSuffix(line, "\r")
		m := yamlValueLine.FindStringSubmatch(strings.TrimSuffix(line, "\r"))
		if m == nil {
			continue
		}
		prefix, value := m[1], m[2]
		var fixed string
		var ok bool
		switch {
		case len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"':
			fixed, ok = repairScalar(value)
		case len(value) >= 2 && value[0] == '[' && value[len(value)-1] == ']':
			fixed, ok = repairFlowList(value)
		}
		if ok {
			lines[i] = prefix + fixed
			if cr {
				lines[i] += "\r"
			}
			changed = true
		}
	}
	return strings.Join(lines, "\n"), changed
}

// repairScalar returns the single-quoted form of a double-quoted scalar
// YAML refuses; ok is false when YAML accepts it as it is.
func repairScalar(quoted string) (string, bool) {
	var v any
	if yaml.Unmarshal([]byte("v: "+quoted), &v) == nil {
		return quoted, false
	}
	return singleQuoted(quoted[1 : len(quoted)-1]), true
}

// repairFlowList repairs each double-quoted item of a one-line flow list.
func repairFlowList(list string) (string, bool) {
	items := splitFlowItems(list[1 : len(list)-1])
	changed := false
	for i, it := range items {
		t := strings.TrimSpace(it)
		if len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"' {
			if fixed, ok := repairScalar(t); ok {
				items[i] = fixed
				changed = true
				continue
			}
		}
		items[i] = t
	}
	if !changed {
		return list, false
	}
	return "[" + strings.Join(items, ", ") + "]", true
}

// splitFlowItems splits the inside of a flow list at the commas outside
// quotes. Inside double quotes a backslash takes the next character along
// (whether or not YAML knows the escape), so "a{1,2}" stays one item.
func splitFlowItems(s string) []string {
	var items []string
	start := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '"' && c == '\\':
			i++
		case quote != 0 && c == quote:
			if quote == '\'' && i+1 < len(s) && s[i+1] == '\'' {
				i++ // '' is a quote inside a single-quoted scalar
				continue
			}
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == ',':
			items = append(items, s[start:i])
			start = i + 1
		}
	}
	if strings.TrimSpace(s[start:]) != "" || len(items) > 0 {
		items = append(items, s[start:])
	}
	return items
}
