package memstore

import (
	"maps"
	"slices"

	"github.com/vaultgraph/vaultgraph/core"
)

// cloneNote returns a copy of n that shares nothing mutable with it.
// Strings are immutable and shared; slices and maps are copied, frontmatter
// recursively.
func cloneNote(n core.Note) core.Note {
	n.Tags = slices.Clone(n.Tags)
	n.Links = slices.Clone(n.Links)
	n.Keys = slices.Clone(n.Keys)
	n.Entity = n.Entity.Clone()
	if n.Frontmatter != nil {
		n.Frontmatter = cloneValue(n.Frontmatter).(map[string]any)
	}
	return n
}

// cloneValue deep-copies the containers a YAML or JSON decoder produces;
// other values (strings, numbers, bools, time.Time) are immutable and
// returned as they are.
func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		// maps.Clone copies the table wholesale, much cheaper than
		// re-inserting; then only nested containers need their own copy.
		out := maps.Clone(x)
		for k, e := range out {
			if isContainer(e) {
				out[k] = cloneValue(e)
			}
		}
		return out
	case map[any]any:
		out := make(map[any]any, len(x))
		for k, e := range x {
			out[k] = cloneValue(e)
		}
		return out
	case []any:
		out := slices.Clone(x)
		for i, e := range out {
			if isContainer(e) {
				out[i] = cloneValue(e)
			}
		}
		return out
	case []string:
		return slices.Clone(x)
	default:
		return v
	}
}

func isContainer(v any) bool {
	switch v.(type) {
	case map[string]any, map[any]any, []any, []string:
		return true
	}
	return false
}
