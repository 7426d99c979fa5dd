// Package toolset declares vaultgraph's toolsets once: their IDs, what each
// holds and which are on by default. The configuration (config: the
// toolsets key, its default and accepted values), the tool inventory
// (tools: Select), the generated tool reference (docs/TOOLS.md) and the
// tests read them from here, so they cannot disagree.
package toolset

// Toolset IDs, as written in configuration (`toolsets: [graph, memory]`).
const (
	Graph    = "graph"    // spec 000/001: the note graph
	KB       = "kb"       // spec 002: knowledge bases
	Edit     = "edit"     // issue 30: section edits and recent changes
	Entities = "entities" // spec 003: typed entities
	Memory   = "memory"   // spec 004: documents and memories
	// All is accepted in configuration only, meaning every toolset;
	// config.Load expands it.
	All = "all"
)

// Info describes a toolset for configuration help and docs.
type Info struct {
	ID          string
	Description string
	Default     bool // enabled when the configuration names no toolsets
}

// List is every toolset in canonical order: the order a configuration's
// toolsets are kept in and the order All expands to.
var List = []Info{
	{ID: Graph, Description: "note graph: get, search, traverse and edit notes (spec 000)", Default: true},
	{ID: KB, Description: "knowledge bases with folder constraints and validated notes (spec 002)", Default: true},
	{ID: Edit, Description: "edit a note's section, text or frontmatter key; list recent changes", Default: true},
	{ID: Entities, Description: "read-only typed entities and their relationship graph (spec 003)"},
	{ID: Memory, Description: "document indexing, semantic search and long-term memories (spec 004)"},
}

// IDs returns every toolset ID in canonical order.
func IDs() []string {
	ids := make([]string, len(List))
	for i, ts := range List {
		ids[i] = ts.ID
	}
	return ids
}

// Defaults returns the IDs of the toolsets enabled by default, in
// canonical order.
func Defaults() []string {
	var ids []string
	for _, ts := range List {
		if ts.Default {
			ids = append(ids, ts.ID)
		}
	}
	return ids
}

// Known reports whether id names a toolset of List (All is not one).
func Known(id string) bool {
	for _, ts := range List {
		if ts.ID == id {
			return true
		}
	}
	return false
}
