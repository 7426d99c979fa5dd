package core

import (
	"slices"
	"strings"
	"time"
)

// Note is one markdown file of a vault as the graph sees it.
//
// ID is the note's identity inside its project: the vault-relative path with
// "/" separators and the extension, lowercased ("notes/ml-basics.md"). When
// two files differ only by letter case, the vault gives the lowercase ID to
// one of them and the exact path to the others (see vault's documentation);
// stores treat IDs as opaque, case-sensitive strings.
type Note struct {
	Project     string         // project (vault) the note belongs to
	ID          string         // lowercased vault-relative path, see above
	Title       string         // frontmatter title, else file name without extension
	Path        string         // vault-relative path as on disk (case preserved)
	Content     string         // body without the frontmatter block
	Tags        []string       // de-duplicated case-insensitively, first spelling kept
	Links       []Link         // outgoing links in document order, duplicates kept
	Frontmatter map[string]any // parsed YAML frontmatter; nil when none or unparseable
	Hash        string         // hex SHA-256 of the raw file bytes
	Size        int64          // size of the raw file in bytes; negative when unknown (see NoteState.Size)
	ModTime     time.Time      // file modification time
	Entity      *NoteEntity    // set when the note is an entity (spec 003, package entity); nil otherwise

	// Keys are the link keys that resolve to this note (set by the vault,
	// e.g. "folder/name" and "name"). Stores keep them to resolve dangling
	// links when the note appears; they are not part of any response.
	Keys []string
}

// Link is one outgoing link of a note, as written and as resolved.
type Link struct {
	Raw     string // the link as written, e.g. "[[Target#Part|shown]]"
	Key     string // resolution key: the normalised target the vault resolves ("folder/target" or "target")
	Target  string // ID of the note it resolves to; "" while unresolved
	Alias   string // text after "|", if any
	Heading string // text after "#" (a block reference keeps its "^"), if any
	Embed   bool   // written as an embed "![[...]]"
}

// Resolved reports whether the link points at an existing note.
func (l Link) Resolved() bool { return l.Target != "" }

// LinkInfo is a link target with its human-readable title (spec 000).
type LinkInfo struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// Direction selects which links of a note a neighbour query follows.
type Direction string

// Directions accepted by neighbour queries.
const (
	DirectionIn   Direction = "in"   // notes linking to the note
	DirectionOut  Direction = "out"  // notes the note links to
	DirectionBoth Direction = "both" // both of the above
)

// Valid reports whether d is one of the defined directions.
func (d Direction) Valid() bool {
	return d == DirectionIn || d == DirectionOut || d == DirectionBoth
}

// Neighbor is a note adjacent to another, with the side it is on.
// A note that is both linked to and linking from is reported once, as "out".
type Neighbor struct {
	Note      Note
	Direction Direction // DirectionIn or DirectionOut, never DirectionBoth
}

// TagMode says whether a tag query matches any or all of the given tags.
type TagMode string

// Tag modes accepted by tag queries.
const (
	TagModeAny TagMode = "any"
	TagModeAll TagMode = "all"
)

// Valid reports whether m is one of the defined tag modes.
func (m TagMode) Valid() bool { return m == TagModeAny || m == TagModeAll }

// HubMetric names a centrality metric.
type HubMetric string

// Hub metrics accepted by hub queries.
const (
	MetricInDegree  HubMetric = "in_degree"  // distinct notes linking to the note
	MetricOutDegree HubMetric = "out_degree" // distinct notes the note links to
	MetricPageRank  HubMetric = "pagerank"   // PageRank over resolved links, see PageRank
)

// Valid reports whether m is one of the defined metrics.
func (m HubMetric) Valid() bool {
	return m == MetricInDegree || m == MetricOutDegree || m == MetricPageRank
}

// Hub pairs a note with its score under a metric.
type Hub struct {
	ID    string
	Title string
	Score float64
}

// Degree is a note's count of distinct linking and linked notes.
type Degree struct {
	In  int
	Out int
}

// NormalizeTag returns the comparison form of a tag: without a leading "#",
// lowercased. Tags compare case-insensitively everywhere, as in Obsidian.
func NormalizeTag(tag string) string {
	return strings.ToLower(strings.TrimPrefix(strings.TrimSpace(tag), "#"))
}

// TagMatches reports whether a search for the tag want finds a note
// carrying tag, both normalised (NormalizeTag): the tag itself, or a tag
// nested under it ("parent/child" and "parent/child/x" for "parent"), as
// Obsidian's tag search finds #parent/child for #parent. A longer name
// ("parental") or a suffix ("child") does not match. Every store's tag
// queries (search_by_tags, random_node's tags) use this rule.
func TagMatches(tag, want string) bool {
	return tag == want || want != "" && len(tag) > len(want) && tag[len(want)] == '/' && strings.HasPrefix(tag, want)
}

// HasTag reports whether n carries tag, compared case-insensitively.
func (n *Note) HasTag(tag string) bool {
	want := NormalizeTag(tag)
	for _, t := range n.Tags {
		if NormalizeTag(t) == want {
			return true
		}
	}
	return false
}

// LinkTargets returns the distinct IDs n links to, in first-seen order,
// leaving out unresolved links.
func (n *Note) LinkTargets() []string {
	out := make([]string, 0, len(n.Links))
	if len(n.Links) <= smallLinkCount { // most notes: a scan beats a map
		for _, l := range n.Links {
			if l.Target != "" && !slices.Contains(out, l.Target) {
				out = append(out, l.Target)
			}
		}
		return out
	}
	seen := make(map[string]bool, len(n.Links))
	for _, l := range n.Links {
		if l.Target == "" || seen[l.Target] {
			continue
		}
		seen[l.Target] = true
		out = append(out, l.Target)
	}
	return out
}

// smallLinkCount is where LinkTargets switches from scanning what it found
// to a set: every answer of the graph tools calls it for every note shown.
const smallLinkCount = 24
