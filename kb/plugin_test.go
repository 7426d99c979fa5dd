package kb

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// This file ports the Obsidian plugin's readers (bincyan/obsidian-llm-bridges,
// src/kb-manager.ts: parseSimpleYaml and parseRulesYaml) to check that the
// plugin reads what vaultgraph writes. The ports keep the plugin's quirks.

var pluginQuotes = regexp.MustCompile(`^["']|["']$`)

// pluginUnquote is the plugin's `.replace(/^["']|["']$/g, ”)`.
func pluginUnquote(s string) string { return pluginQuotes.ReplaceAllString(s, "") }

// pluginSimpleYAML is parseSimpleYaml: key: value lines, one pair of
// matching quotes stripped.
func pluginSimpleYAML(src string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		i := strings.Index(t, ":")
		if i <= 0 {
			continue
		}
		k, v := strings.TrimSpace(t[:i]), strings.TrimSpace(t[i+1:])
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		out[k] = v
	}
	return out
}

// jsNumber is JavaScript's Number(s) for the values the plugin meets.
func jsNumber(s string) (float64, bool) {
	if strings.TrimSpace(s) == "" {
		return 0, true
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f, err == nil && !math.IsNaN(f)
}

// pluginParseRules is parseRulesYaml.
func pluginParseRules(src string) Rules {
	var rules Rules
	section := ""
	var current *FieldRule
	var fields []FieldRule
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t") {
			if section == "frontmatter" && len(fields) > 0 {
				rules.Frontmatter = &FrontmatterRules{RequiredFields: append([]FieldRule(nil), fields...)}
			}
			if i := strings.Index(t, ":"); i > 0 {
				section = strings.TrimSpace(t[:i])
			}
			current = nil
			fields = fields[:0]
			continue
		}
		switch section {
		case "frontmatter":
			if strings.HasPrefix(t, "- name:") {
				if current != nil {
					fields = append(fields, *current)
				}
				current = &FieldRule{Name: strings.TrimSpace(t[8:]), Type: TypeString}
			} else if current != nil && strings.Contains(t, ":") {
				parts := strings.Split(t, ":")
				key, value := strings.TrimSpace(parts[0]), strings.TrimSpace(strings.Join(parts[1:], ":"))
				var list []any
				isList := strings.HasPrefix(value, "[") && strings.HasSuffix(value, "]")
				if isList {
					for _, v := range strings.Split(value[1:len(value)-1], ",") {
						tv := pluginUnquote(strings.TrimSpace(v))
						switch n, ok := jsNumber(tv); {
						case tv == "true":
							list = append(list, true)
						case tv == "false":
							list = append(list, false)
						case ok:
							list = append(list, n)
						default:
							list = append(list, tv)
						}
					}
				} else if strings.HasPrefix(value, `"`) || strings.HasPrefix(value, "'") {
					value = value[1 : len(value)-1]
				}
				switch key {
				case "type":
					current.Type = FieldType(value)
				case "pattern":
					current.Pattern = value
				case "allowed_values":
					current.AllowedValues = list
				}
			}
		case "filename":
			if strings.HasPrefix(t, "pattern:") {
				rules.Filename = &FilenameRules{Pattern: pluginUnquote(strings.TrimSpace(t[8:]))}
			}
		case "content":
			if rules.Content == nil {
				rules.Content = &ContentRules{}
			}
			i := strings.Index(t, ":")
			if i <= 0 {
				continue
			}
			key, value := strings.TrimSpace(t[:i]), strings.TrimSpace(t[i+1:])
			switch key {
			case "min_length", "max_length":
				n, _ := strconv.Atoi(value)
				if key == "min_length" {
					rules.Content.MinLength = &n
				} else {
					rules.Content.MaxLength = &n
				}
			case "required_sections":
				for _, v := range strings.Split(value[1:len(value)-1], ",") {
					rules.Content.RequiredSections = append(rules.Content.RequiredSections, pluginUnquote(strings.TrimSpace(v)))
				}
			}
		}
	}
	if section == "frontmatter" {
		if current != nil {
			fields = append(fields, *current)
		}
		if len(fields) > 0 {
			rules.Frontmatter = &FrontmatterRules{RequiredFields: fields}
		}
	}
	return rules
}
