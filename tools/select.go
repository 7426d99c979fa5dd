package tools

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
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
	// Tools are single tools served besides those of the enabled
	// toolsets, each named "tool" or "toolset/tool". ExcludeTools are
	// tools not served, named the same way or by the name they are
	// published under (after a rename). An unknown name is an error.
	Tools, ExcludeTools []string
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

	renamedTo := slices.Collect(maps.Values(DefaultRenames))
	renamedTo = append(renamedTo, slices.Collect(maps.Values(sel.Renames))...)
	for _, name := range append(slices.Clone(sel.Tools), sel.ExcludeTools...) {
		excluded := slices.Contains(sel.ExcludeTools, name)
		if !slices.ContainsFunc(all, func(t Tool) bool { return t.named(name) }) && !(excluded && slices.Contains(renamedTo, name)) {
			return nil, fmt.Errorf("tools: unknown tool %q (known: %s)", name, strings.Join(toolNames(all), ", "))
		}
	}
	var picked []Tool
	for _, t := range all {
		single := slices.ContainsFunc(sel.Tools, t.named)
		if !slices.Contains(enabled, t.Toolset) && !single {
			continue
		}
		if sel.ReadOnly && !t.ReadOnly() {
			if single {
				return nil, fmt.Errorf("tools: tool %q writes, and read_only is set", t.Tool.Name)
			}
			continue
		}
		if slices.ContainsFunc(sel.ExcludeTools, t.named) {
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

	// An exclusion may name a tool by the name it is published under.
	picked = slices.DeleteFunc(picked, func(t Tool) bool { return slices.Contains(sel.ExcludeTools, t.Tool.Name) })
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

// Wants reports whether sel can pick a tool of toolset, whose tools are
// specs: the toolset is enabled, or one of specs is named alone in Tools
// ("tool" or "toolset/tool"; a name two toolsets publish, such as search,
// only as "toolset/tool"). A caller that builds a toolset's tools only
// when they can be served (the memory toolset's need the memory service
// and the document index) asks this, so that a tool named alone is built
// and Select finds it, with its toolset off.
func (sel Selection) Wants(toolset string, specs []mcp.Tool) bool {
	enabled := sel.Toolsets
	if len(enabled) == 0 {
		enabled = DefaultToolsets()
	}
	if slices.Contains(enabled, toolset) {
		return true
	}
	for _, spec := range specs {
		for _, name := range sel.Tools {
			switch name {
			case toolset + "/" + spec.Name:
				return true
			case spec.Name:
				// A name two toolsets publish (search) names the other
				// one's too; it turns this toolset on only written
				// "toolset/tool".
				if _, clash := DefaultRenames[toolset+"/"+spec.Name]; !clash {
					return true
				}
			}
		}
	}
	return false
}

// named reports whether name ("tool" or "toolset/tool") names t.
func (t Tool) named(name string) bool {
	return name == t.Tool.Name || name == t.Toolset+"/"+t.Tool.Name
}

// toolNames lists the names of all, each once, sorted.
func toolNames(all []Tool) []string {
	var names []string
	for _, t := range all {
		names = append(names, t.Tool.Name)
	}
	slices.Sort(names)
	return slices.Compact(names)
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
