package kb

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// encodeMeta writes a knowledge base's meta.md in the plugin's layout:
// create_time, description and subfolder in the frontmatter, the
// organization rules as the body after a blank line.
func encodeMeta(kb *KnowledgeBase) []byte {
	var b strings.Builder
	b.WriteString("---\n")
	b.WriteString("create_time: " + quoted(kb.CreateTime) + "\n")
	b.WriteString("description: " + quoted(kb.Description) + "\n")
	b.WriteString("subfolder: " + quoted(kb.Subfolder) + "\n")
	b.WriteString("---\n\n")
	b.WriteString(kb.OrganizationRules)
	return []byte(b.String())
}

// decodeMeta reads a meta.md leniently: YAML the plugin wrote raw is
// repaired (decodeLenientYAML), and as a last resort the frontmatter is
// read line by line as the plugin reads it. A missing frontmatter or a
// subfolder that is not a safe relative path is an error.
func decodeMeta(name string, raw []byte) (*KnowledgeBase, error) {
	doc := splitDocument(string(raw))
	if !doc.hasFrontmatter {
		return nil, errors.New("meta.md has no frontmatter (--- lines)")
	}
	fm, err := lenientFrontmatter(doc.frontmatter)
	if err != nil {
		return nil, err
	}
	sub, ok := fm["subfolder"]
	if !ok {
		return nil, errors.New("meta.md has no subfolder")
	}
	clean, err := lenientFolder(sub)
	if err != nil {
		return nil, fmt.Errorf("meta.md subfolder: %w", err)
	}
	return &KnowledgeBase{
		Name:              name,
		CreateTime:        fm["create_time"],
		Description:       fm["description"],
		Subfolder:         clean,
		OrganizationRules: strings.TrimRight(strings.TrimLeft(doc.body, "\r\n"), " \t\r\n"),
	}, nil
}

// lenientFrontmatter reads a metadata file's frontmatter as strings.
func lenientFrontmatter(src string) (map[string]string, error) {
	v, err := decodeLenientYAML(src)
	if err != nil {
		return simpleYAML(src), nil
	}
	out := map[string]string{}
	m, ok := v.(map[string]any)
	if !ok && v != nil {
		return nil, errors.New("frontmatter is not a mapping")
	}
	for k, val := range m {
		if s, ok := scalarText(val); ok {
			out[k] = s
		}
	}
	return out, nil
}

// simpleYAML is the plugin's own reader of metadata frontmatter: one
// "key: value" per line, one pair of surrounding quotes stripped, no
// unescaping.
func simpleYAML(src string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		k, v, ok := strings.Cut(t, ":")
		if !ok || strings.TrimSpace(k) == "" {
			continue
		}
		out[strings.TrimSpace(k)] = unquoteLoose(strings.TrimSpace(v))
	}
	return out
}

// unquoteLoose strips one pair of matching quotes; a double-quoted value
// YAML can unescape is unescaped.
func unquoteLoose(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		if v[0] == '"' {
			if s, err := strconv.Unquote(v); err == nil {
				return s
			}
		}
		return v[1 : len(v)-1]
	}
	return v
}
