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
	// Balanced, with DirectionBoth and a Limit, shares the Limit between
	// the two sides as SplitNeighbors does, instead of filling it with
	// outgoing neighbours first: get_node's 20 slots, so that a note with
	// many links still shows its backlinks. The neighbours are those
	// Neighbors lists (outgoing, then incoming ones the note does not link
	// to, each by ID), the first takeOut outgoing and the first takeIn
	// incoming, in that order.
	Balanced bool
}

// SplitNeighbors shares limit neighbour slots between a note's out
// outgoing and in incoming neighbours (incoming ones it does not also
// link to): up to half to each side, the outgoing side taking the odd
// slot, and the slots one side cannot fill to the other. It returns how
// many of each to show. With limit 20: 33 out and 65 in give 10 and 10;
// 3 out and 65 in give 3 and 17; 33 out and 2 in give 18 and 2.
func SplitNeighbors(limit, out, in int) (takeOut, takeIn int) {
	if limit <= 0 {
		return out, in
	}
	takeOut = min(out, max(limit-limit/2, limit-in))
	takeIn = min(in, limit-takeOut)
	return takeOut, takeIn
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
