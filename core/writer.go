package core

import "context"

// NewNote is what a client asks for when it creates a note.
type NewNote struct {
	Title     string   // exact title; the file name is derived from it
	Content   string   // markdown body
	Tags      []string // written to frontmatter `tags`
	Directory string   // vault-relative folder, created if missing; "" = vault root
}

// NoteUpdate changes parts of a note; a nil field is left as it is.
type NoteUpdate struct {
	Title   *string   // new title: renames the file and rewrites incoming links
	Content *string   // new body (frontmatter is kept)
	Tags    *[]string // the note's tags, exactly: frontmatter tags; other inline #tags of the kept body are escaped (\#c)
	// ExpectedHash, when not empty, is the hash (Note.Hash) of the file
	// the change was made against: when the file on disk no longer has it
	// (an editor changed it meanwhile), nothing is written and the error
	// wraps ErrConflict. The check and the write are one step for every
	// other writer. Empty: the change applies to the file as it is (the
	// update_node tool's contract, which carries no version).
	ExpectedHash string
}

// RenameReport says what a rename rewrote to keep incoming links whole.
type RenameReport struct {
	OldID        string
	NewID        string
	FilesChanged int // linking files rewritten
	LinksChanged int // links rewritten across those files
	// Relinked are the other notes rewritten, with how many of their
	// links changed each, sorted by ID (the renamed note's own links are
	// not listed).
	Relinked []Relinked
}

// Relinked is a note a write rewrote to keep its links' meaning, and how
// many of its links changed.
type Relinked struct {
	ID    string
	Path  string // vault-relative, as on disk
	Links int
}

// NoteWriter changes notes of one vault: the file first (atomically), then
// the store in the same call, so a read right after sees the change.
// Implemented by the vault package.
type NoteWriter interface {
	// Create writes a new note; an error wrapping ErrExists when its file
	// exists, ErrInvalidPath when Directory escapes the vault.
	Create(ctx context.Context, n NewNote) (*Note, error)
	// Update changes the note with this ID; ErrNotFound when it does not
	// exist. The report is non-nil when the title change renamed the file.
	Update(ctx context.Context, id string, u NoteUpdate) (*Note, *RenameReport, error)
	// Delete removes the note's file and node; false when it did not exist.
	Delete(ctx context.Context, id string) (bool, error)
}

// LocalResolver is a NoteWriter that can answer, from its own index of
// the vault (the source of truth), what its write tools otherwise ask the
// store: which of a client's ID candidates names a note, and the titles
// of notes. GraphService's writes ask the store first and this only when
// the store fails (a provider error: Neo4j down), so that every write
// tool has one contract while the store is down: the file is written,
// the store's change is queued, and the answer says so in _warnings
// (docs/DECISIONS.md, issue 44.5).
type LocalResolver interface {
	// LocalID returns the first of candidates that is the ID of a note of
	// the vault, or "" when none is.
	LocalID(ctx context.Context, candidates []string) (string, error)
	// LocalTitles returns the titles of the notes with these IDs; IDs of
	// no note are left out.
	LocalTitles(ctx context.Context, ids []string) (map[string]string, error)
}

// StoreQueuedWarning is the _warnings entry of a write whose file was
// written while the graph store failed: the store's change is queued and
// applied when the store answers again.
const StoreQueuedWarning = "Graph store unavailable: changes are queued and will be applied when it is back"

// CreateReporter is a NoteWriter whose create also says which other
// notes it rewrote so that no link changes meaning (a bare link the new
// note would take over gets a longer form), sorted by ID.
// GraphService.Create uses it when the writer has it.
type CreateReporter interface {
	CreateReporting(ctx context.Context, n NewNote) (*Note, []Relinked, error)
}

// NoteCheck vets a note a NoteWriter is about to write: path is where the
// file will be (vault-relative, as on disk, after any rename) and content
// its whole new bytes. An error stops the write, and nothing is written;
// the writer returns the error as it is (a *ConstraintError when the note
// breaks rules the vault's owner set). The knowledge base service
// provides one, so that the graph tools cannot write past a knowledge
// base's folder constraints.
type NoteCheck func(ctx context.Context, path string, content []byte) error
