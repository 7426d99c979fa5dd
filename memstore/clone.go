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

// cloneNodes copies the notes of nodes, like cloneNote each, but with the
// tags and links of all of them in one allocation each. Every note's slices
// are capped (three-index slicing), so an append by the caller reallocates
// instead of writing into the next note's links.
func cloneNodes(nodes []*node) []core.Note {
	nTags, nLinks := 0, 0
	for _, n := range nodes {
		nTags += len(n.note.Tags)
		nLinks += len(n.note.Links)
	}
	tags := make([]string, 0, nTags)
	links := make([]core.Link, 0, nLinks)
	notes := make([]core.Note, len(nodes))
	for i, n := range nodes {
		c := n.note
		if c.Tags != nil {
			start := len(tags)
			tags = append(tags, c.Tags...)
			c.Tags = tags[start:len(tags):len(tags)]
		}
		if c.Links != nil {
			start := len(links)
			links = append(links, c.Links...)
			c.Links = links[start:len(links):len(links)]
		}
		c.Keys = nil
		c.Entity = c.Entity.Clone()
		if c.Frontmatter != nil {
			c.Frontmatter = cloneValue(c.Frontmatter).(map[string]any)
		}
		notes[i] = c
	}
	return notes
}
