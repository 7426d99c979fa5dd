package config

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"
)

const templateHeader = `# vaultgraph configuration (written by "vaultgraph init").
#
# Where settings come from, lowest to highest precedence: built-in defaults,
# this file, environment variables VAULTGRAPH_<KEY>, command-line flags.
# Every key below is shown with its default, commented out: remove the "# "
# in front of a key to change it. In the environment, nested keys join with
# "_" (neo4j.uri is VAULTGRAPH_NEO4J_URI) and lists are comma-separated
# (VAULTGRAPH_TOOLSETS=graph,kb,edit). Relative paths are relative to this file's
# folder; ~ is your home folder.
#
# Secrets (neo4j.password, http.tokens, embedding.api_key) are safer in the
# environment than in this file, and are never accepted as flags.
# "vaultgraph status" shows the effective settings and where each came from.
`

// Template returns a commented vaultgraph.yaml that sets vault (an absolute
// path; "" leaves it commented out) and explains every other key with its
// environment variable, flag and default. It loads back without problems.
func Template(vault string) []byte {
	var b bytes.Buffer
	b.WriteString(templateHeader)
	var parents []string // the groups of the key before (neo4j, or http and oauth)
	for i := range keys {
		k := &keys[i]
		parts := strings.Split(k.name, ".")
		groups, leaf := parts[:len(parts)-1], parts[len(parts)-1]
		same := 0
		for same < len(groups) && same < len(parents) && groups[same] == parents[same] {
			same++
		}
		for j := same; j < len(groups); j++ {
			fmt.Fprintf(&b, "\n%s%s:\n", strings.Repeat("  ", j), groups[j])
		}
		parents = groups
		indent := strings.Repeat("  ", len(groups))
		b.WriteString("\n")
		for _, line := range append([]string{sentence(k.help)}, k.doc...) {
			b.WriteString(indent + "# " + line + "\n")
		}
		where := "env " + k.env()
		switch {
		case k.flag != "" && k.scope == FlagServe:
			where += ", flag serve --" + k.flag
		case k.flag != "" && k.scope == FlagServeSync:
			where += ", flag serve/sync --" + k.flag
		case k.flag != "":
			where += ", flag --" + k.flag
		}
		if k.allowed != nil {
			where = "one of " + strings.Join(k.allowed, ", ") + "; " + where
		}
		b.WriteString(indent + "# " + where + "\n")
		switch {
		case k.name == "vault" && vault != "":
			b.WriteString(indent + leaf + ": " + yamlScalar(vault) + "\n")
		case k.example != nil:
			for _, line := range k.example {
				b.WriteString(indent + "# " + line + "\n")
			}
		case k.defDoc != "":
			b.WriteString(indent + "# " + leaf + ": " + yamlScalar(k.defDoc) + "\n")
		default:
			b.WriteString(indent + "# " + leaf + ": " + yamlFlow(k.defaultValue()) + "\n")
		}
	}
	return b.Bytes()
}

// sentence capitalises a help fragment and ends it with a full stop.
func sentence(s string) string {
	r := []rune(s)
	if len(r) > 0 {
		r[0] = unicode.ToUpper(r[0])
	}
	return string(r) + "."
}

// yamlFlow renders a default in YAML flow style, on one line.
func yamlFlow(v any) string {
	switch v := v.(type) {
	case []string:
		items := make([]string, len(v))
		for i, s := range v {
			items[i] = yamlScalar(s)
		}
		return "[" + strings.Join(items, ", ") + "]"
	case map[string]string:
		pairs := make([]string, 0, len(v))
		for _, from := range slices.Sorted(maps.Keys(v)) {
			pairs = append(pairs, yamlScalar(from)+": "+yamlScalar(v[from]))
		}
		return "{" + strings.Join(pairs, ", ") + "}"
	case time.Duration:
		return v.String()
	case string:
		return yamlScalar(v)
	}
	return fmt.Sprint(v)
}

// yamlScalar quotes s as YAML needs it ("" becomes "").
func yamlScalar(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil { // cannot happen for a string
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSuffix(string(out), "\n")
}
