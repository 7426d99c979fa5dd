package core

import "context"

// ContextReader is the part of GraphReader that answers get_node,
// get_neighbors, search_by_tags and random_node in one call each, as views:
// what the tools show of a note, its links already carrying their targets'
// titles. On Neo4j every call is a network round trip, and reading a note,
// its neighbours, its degree and the titles of their links with GetNote,
// Neighbors, Degree and ResolveTitles took four (13 ms at 100k notes);
// NoteContext is one statement. On the embedded store the titles come from
// each note's own list of its targets, without a lookup per link (at 100k
// notes those lookups, each a cache miss, were a third of a get_neighbors
// call). The answers are what those separate calls give (the contract
// suite holds both stores to it; see ViewOf).
type ContextReader interface {
	// NoteContext reads around the note with exactly id (no case folding):
	// the note (unless q.SkipNote), up to q.Limit of its neighbours in
	// q.Direction as Neighbors orders them (none when q.Direction is ""),
	// and its Degree. It returns an error wrapping ErrNotFound when id does
	// not exist.
	NoteContext(ctx context.Context, project, id string, q ContextQuery) (*NoteContext, error)

	// TaggedViews is NotesByTags as views: search_by_tags in one call. Their
	// Content may be cut as NoteContext's neighbours' (see ContextContentChars).
	TaggedViews(ctx context.Context, project string, tags []string, mode TagMode, limit int) ([]NodeView, error)

	// RandomView is RandomNote as a view, with the whole Content:
	// random_node in one call. nil when there is no note to pick.
	RandomView(ctx context.Context, project string, tags []string, pick func(n int) int) (*NodeView, error)
}

// ContextContentChars is how much content a neighbour in NoteContext must
// keep: its Content may be cut to its first ContextContentChars+1
// characters, which gives the same TruncateContent result for any limit up
// to ContextContentChars (the list and neighbour limits).
const ContextContentChars = ListContentLimit

// ContextQuery says what NoteContext reads besides the degree and titles.
type ContextQuery struct {
	SkipNote  bool      // leave NoteContext.Note empty: get_neighbors needs only the neighbours
	Direction Direction // neighbours to read; "" for none
	Limit     int       // at most this many neighbours; <= 0 means no limit, as in Neighbors
}

// NoteContext is the answer of ContextReader.NoteContext. Its views are
// ViewOf the notes with the titles ResolveTitles gives; a store may share
// their strings and slices with what it holds: callers must not modify
// them.
type NoteContext struct {
	// Note is the note, with its whole Content (empty with SkipNote).
	Note NodeView
	// Neighbors are as Neighbors(Direction, Limit) lists them; their
	// Content may be cut to its first ContextContentChars+1 characters.
	Neighbors []NeighborView
	Degree    Degree // distinct in- and out-degree of the note
}

// ViewOf is what a view shows of n: its ID, title, tags and content as
// they are, and Links, its distinct link targets in first-seen order with
// their titles from titles. Unresolved links and targets missing from
// titles are left out.
func ViewOf(n *Note, titles map[string]string) NodeView {
	targets := n.LinkTargets()
	links := make([]LinkInfo, 0, len(targets))
	for _, t := range targets {
		if title, ok := titles[t]; ok {
			links = append(links, LinkInfo{ID: t, Title: title})
		}
	}
	return NodeView{ID: n.ID, Title: n.Title, Content: n.Content, Tags: n.Tags, Links: links}
}
