package benchgen

import (
	"cmp"
	"slices"
	"strings"
)

// Manifest describes a generated vault: what a correct parser should find
// in it, and the material benchmarks draw tool arguments from.
type Manifest struct {
	Config  Config `json:"config"`
	Folders int    `json:"folders"` // folders created, the root not counted
	Notes   []Note `json:"notes"`   // in generation order
	// Links counts link occurrences written (wikilinks, embeds, markdown
	// links to notes, frontmatter wikilinks), broken ones included; Broken
	// those that point at no note. Link- and tag-like text inside code is
	// not counted: it is not a link.
	Links  int   `json:"links"`
	Broken int   `json:"broken"`
	Bytes  int64 `json:"bytes"` // total file size
	// Tags is the tag vocabulary, most popular first.
	Tags []string `json:"tags"`
}

// Note is one generated note.
type Note struct {
	Path string   `json:"path"` // vault-relative, "/" separators, with ".md"
	Tags []string `json:"tags"` // distinct, frontmatter ones first
	Size int      `json:"size"` // file size in bytes
	// Links and Broken count link occurrences written in this note.
	Links  int `json:"links"`
	Broken int `json:"broken"`
	// InDegree is how many other notes link to this one.
	InDegree int `json:"in_degree"`
	// OutDegree is how many distinct notes this one links to.
	OutDegree int `json:"out_degree"`
}

// ID is the note's ID in vaultgraph: its path lowercased (generated paths
// never differ only by letter case).
func (n Note) ID() string { return strings.ToLower(n.Path) }

func newManifest(p *plan, notes []rendered) *Manifest {
	m := &Manifest{Config: p.cfg, Folders: len(p.folders), Tags: p.tags, Notes: make([]Note, len(notes))}
	for i, r := range notes {
		m.Notes[i] = Note{Path: p.paths[i], Tags: r.tags, Size: r.size, Links: r.links, Broken: r.broken, OutDegree: len(r.targets)}
		m.Links += r.links
		m.Broken += r.broken
		m.Bytes += int64(r.size)
	}
	for _, r := range notes {
		for _, j := range r.targets {
			m.Notes[j].InDegree++
		}
	}
	return m
}

// Hubs returns the k notes with the most in-links, most first (ties by
// path).
func (m *Manifest) Hubs(k int) []Note {
	sorted := slices.Clone(m.Notes)
	slices.SortFunc(sorted, func(a, b Note) int {
		if c := cmp.Compare(b.InDegree, a.InDegree); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	return sorted[:min(k, len(sorted))]
}
