package core

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// ChangeKind is what happened to a note file.
type ChangeKind string

// The kinds of note change a change log records.
const (
	ChangeCreated  ChangeKind = "created"
	ChangeModified ChangeKind = "modified"
	ChangeRenamed  ChangeKind = "renamed" // moved or renamed, possibly changed too
	ChangeDeleted  ChangeKind = "deleted"
)

// NoteChange is one entry of a project's change log: a note file created,
// modified, renamed or deleted, as the vault mirror saw it (through a
// tool's write, the watcher, or the scan at a start).
type NoteChange struct {
	// Key orders the log and pages it: unique, and greater for a later
	// change (see ChangeKey).
	Key  string
	At   time.Time // when it happened
	Kind ChangeKind
	// ID and Path are the note's after the change (before it, for a
	// delete); OldID and OldPath a rename's previous ones.
	ID, Path       string
	OldID, OldPath string
	Title          string
	// Hash is the content hash after the change, "" for a delete.
	Hash string
	// SizeBefore and SizeAfter are the file's sizes in bytes, -1 where
	// there is no file (before a create, after a delete) or it is unknown.
	SizeBefore, SizeAfter int64
	// Actor is who made the change (zero when not recorded: a log written
	// before actors were, or with changes.record_actor off).
	Actor Actor
}

// ChangeKey returns a key for a change at t: the time in nanoseconds since
// the epoch, zero-padded so that keys sort as times do, and random bits
// that tell apart changes of one instant (or of two processes).
func ChangeKey(t time.Time) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%020d-%s", max(t.UnixNano(), 0), hex.EncodeToString(b[:]))
}

// ChangeQuery selects one page of a change log, newest first.
type ChangeQuery struct {
	Since  time.Time // only changes at or after Since; zero for all
	Before string    // only changes whose Key is smaller (the previous page's last Key); "" from the newest
	Limit  int       // at most this many, > 0
}

// Bounds of a change log: PruneChanges is called with them.
const (
	ChangeLogMaxAge     = 30 * 24 * time.Hour
	ChangeLogMaxEntries = 100_000
)

// ChangeLog is a project's log of note changes, for recent_changes. It
// survives restarts, and is bounded by PruneChanges.
type ChangeLog interface {
	// AppendChanges adds changes (each with its Key) to project's log, in
	// order. A change equal to the newest one logged for the same note ID
	// (same Kind, Path, OldPath and Hash) is not added: two processes
	// that mirror one vault into one store (a sync worker and a server's
	// tools) both see each edit. A Key already logged is not added again.
	AppendChanges(ctx context.Context, project string, changes []NoteChange) error

	// Changes returns up to q.Limit changes of project, the greatest Key
	// (the newest) first.
	Changes(ctx context.Context, project string, q ChangeQuery) ([]NoteChange, error)

	// LastChange returns the newest change logged for the note id (by
	// Key, whatever its age among the log's other entries), or nil when the
	// log holds none: the view shows who changed a note last.
	LastChange(ctx context.Context, project, id string) (*NoteChange, error)

	// PruneChanges deletes the changes of project older than before, then
	// all but the newest keep, and returns how many it deleted.
	PruneChanges(ctx context.Context, project string, before time.Time, keep int) (int, error)
}
