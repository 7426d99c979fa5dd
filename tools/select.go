package tools

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// DefaultRenames resolves the name clashes between vaultgraph's own
// toolsets: the memory toolset's `search` (spec 004) is published as
// `memory_search` when the graph toolset's `search` (spec 000) is enabled
// too. Keys are "toolset/tool".
var DefaultRenames = map[string]string{
	ToolsetMemory + "/search": "memory_search",
}

// Selection says which tools of the inventory a server registers.
type Selection struct {
	// Toolsets are the enabled toolset IDs; empty means DefaultToolsets().
	// An unknown ID is an error.
	Toolsets []string
	// ReadOnly keeps only the tools whose ReadOnlyHint annotation is true.
	ReadOnly bool
	// Renames says what to publish a tool under when another enabled tool
	// has the same name. A key is "toolset/tool" (exact) or a bare tool
	// name; on a clash the tool of the toolset that comes first in
	// Toolsets keeps its name, and each other one is renamed by its
	// "toolset/tool" entry, else by its bare-name entry. Entries are
	// merged over DefaultRenames (an entry here wins). A tool that clashes
	// with no other keeps its name; a clash no rename resolves is an error.
	Renames map[string]string
}

// Select returns the tools of all that sel enables, in the order of all,
// with clashing names renamed. It fails on an unknown toolset, and on two
// tools left with one name.
func Select(all []Tool, sel Selection) ([]Tool, error) {
	enabled := sel.Toolsets
	if len(enabled) == 0 {
		enabled = DefaultToolsets()
	}
	for _, id := range enabled {
		if !KnownToolset(id) {
			return nil, fmt.Errorf("tools: unknown toolset %q (known: %s)", id, strings.Join(toolsetIDs(), ", "))
		}
	}

	var picked []Tool
	for _, t := range all {
		if !slices.Contains(enabled, t.Toolset) {
			continue
		}
		if sel.ReadOnly && !t.ReadOnly() {
			continue
		}
		picked = append(picked, t)
	}

	renames := maps.Clone(DefaultRenames)
	maps.Copy(renames, sel.Renames)
	owners := make(map[string][]string) // name -> toolsets exporting it
	for _, t := range picked {
		owners[t.Tool.Name] = append(owners[t.Tool.Name], t.Toolset)
	}
	for i, t := range picked {
		clash := owners[t.Tool.Name]
		if len(clash) < 2 || t.Toolset == firstToolset(clash) {
			continue
		}
		to := renames[t.Toolset+"/"+t.Tool.Name]
		if to == "" {
			to = renames[t.Tool.Name]
		}
		if to != "" {
			picked[i].Tool.Name = to
		}
	}

	seen := make(map[string]string, len(picked))
	for _, t := range picked {
		if other, dup := seen[t.Tool.Name]; dup {
			return nil, fmt.Errorf("tools: toolsets %s and %s both publish tool %q; set a rename for %q or %q, or disable one toolset",
				other, t.Toolset, t.Tool.Name, other+"/"+t.Tool.Name, t.Toolset+"/"+t.Tool.Name)
		}
		seen[t.Tool.Name] = t.Toolset
	}
	return picked, nil
}

func toolsetIDs() []string {
	ids := make([]string, len(Toolsets))
	for i, ts := range Toolsets {
		ids[i] = ts.ID
	}
	return ids
}

// firstToolset returns the one of ids that comes first in Toolsets.
func firstToolset(ids []string) string {
	for _, ts := range Toolsets {
		if slices.Contains(ids, ts.ID) {
			return ts.ID
		}
	}
	return ""
}
