package edit

// EditNoteResponse is edit_note's answer.
type EditNoteResponse struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Title   string `json:"title"`
	Changed bool   `json:"changed"` // false: the note already read so
	Version string `json:"version"` // for the next edit's expected_version
	// Diff is a unified diff of the file, "" when nothing changed.
	Diff     string   `json:"diff"`
	Warnings []string `json:"_warnings,omitempty"`
}

func (r *EditNoteResponse) setWarnings(w []string) { r.Warnings = w }

// RecentChangesResponse is recent_changes' answer: a page of the change
// log, newest first.
type RecentChangesResponse struct {
	Changes []ChangeResponse `json:"changes"`
	// NextCursor is the cursor argument for the next (older) page; absent
	// on the last page.
	NextCursor string `json:"next_cursor,omitempty"`
}

// ChangeResponse is one change of one note.
type ChangeResponse struct {
	At      string `json:"at"`   // RFC 3339, UTC
	Kind    string `json:"kind"` // created, modified, renamed or deleted
	ID      string `json:"id"`   // the note's ID after the change (before it, for a delete)
	Path    string `json:"path"`
	OldID   string `json:"old_id,omitempty"` // a rename's previous ID
	OldPath string `json:"old_path,omitempty"`
	Title   string `json:"title"`
	Summary string `json:"summary"` // one line: what happened, how the size moved
	// By is who made the change: a signed-in person's subject (with
	// email and name), token:<n> for the n-th static HTTP token, local for
	// the user of a stdio process, outside for an edit made outside
	// vaultgraph; absent when not recorded.
	By *ActorResponse `json:"by,omitempty"`
}

// ActorResponse is who made a change.
type ActorResponse struct {
	ID    string `json:"id"`
	Email string `json:"email,omitempty"`
	Name  string `json:"name,omitempty"`
}
