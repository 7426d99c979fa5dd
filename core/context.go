package core

import "context"

// ContextReader is the part of GraphReader that answers get_node,
// get_neighbors, search_by_tags and random_node in one call each. On Neo4j every call is a network round trip,
// and reading a note, its neighbours, its degree and the titles of their
// links with GetNote, Neighbors, Degree and ResolveTitles took four
// (13 ms at 100k notes); NoteContext is one statement. Its answers are
// what those calls give (the contract suite holds both stores to it).
type ContextReader interface {
	// NoteContext reads around the note with exactly id (no case folding):
	// the note (unless q.SkipNote), up to q.Limit of its neighbours in
	// q.Direction as Neighbors orders them (none when q.Direction is ""),
	// its Degree, and the titles of every existing link target of the notes
	// returned. It returns an error wrapping ErrNotFound when id does not
	// exist.
	NoteContext(ctx context.Context, project, id string, q ContextQuery) (*NoteContext, error)

	// TaggedNotes is NotesByTags with the titles of every existing link
	// target of the notes returned (ID → title): search_by_tags in one call.
	// Its notes may hold only what a view shows, as NoteContext's
	// neighbours (see NoteContext.Neighbors).
	TaggedNotes(ctx context.Context, project string, tags []string, mode TagMode, limit int) ([]Note, map[string]string, error)

	// RandomNoteTitled is RandomNote with the titles of every existing
	// link target of the note returned: random_node in one call.
	RandomNoteTitled(ctx context.Context, project string, tags []string, pick func(n int) int) (*Note, map[string]string, error)
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

// NoteContext is the answer of ContextReader.NoteContext.
type NoteContext struct {
	// Note is the note (empty with SkipNote), with at least what a view
	// shows: ID, Title, Tags, the Target of every link and the whole
	// Content. Other fields may be empty; its slices may be shared with
	// the store, as the neighbours' are.
	Note Note
	// Neighbors are as Neighbors(Direction, Limit) lists them, each with
	// at least what a view shows: ID, Title, Tags, the Target of every link
	// and its Content, which may be cut to its first ContextContentChars+1
	// characters. Other fields may be empty. A store may share their
	// slices with what it holds: callers must not modify them.
	Neighbors []Neighbor
	Degree    Degree            // distinct in- and out-degree of the note
	Titles    map[string]string // ID → title of every existing link target of Note and Neighbors
}
