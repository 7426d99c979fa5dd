package kb

import (
	"context"
	"log/slog"

	kbase "github.com/vaultgraph/vaultgraph/kb"
)

// Bases is what the knowledge base tools need.
type Bases interface {
	ListKnowledgeBases(ctx context.Context) ([]kbase.Summary, error)
	AddKnowledgeBase(ctx context.Context, in kbase.NewKnowledgeBase) (*kbase.KnowledgeBase, error)
	UpdateKnowledgeBase(ctx context.Context, name string, upd kbase.KnowledgeBaseUpdate) (*kbase.KnowledgeBase, []string, error)
	AddFolderConstraint(ctx context.Context, kbName, subfolder string, rules kbase.Rules) (*kbase.Constraint, error)
}

// Notes is what the note tools need.
type Notes interface {
	CreateNote(ctx context.Context, kbName, notePath, content string) (*kbase.NoteResult, error)
	UpdateNote(ctx context.Context, kbName, notePath, content, expectedVersion string) (*kbase.NoteChange, error)
	AppendNote(ctx context.Context, kbName, notePath, content string) (*kbase.NoteChange, error)
	MoveNote(ctx context.Context, kbName, originPath, newPath string) (*kbase.NoteMove, error)
	DeleteNote(ctx context.Context, kbName, notePath string) (*kbase.KnowledgeBase, string, error)
	ReadNote(ctx context.Context, kbName, notePath string, offset, limit int) (*kbase.NotePage, error)
	ListNotes(ctx context.Context, kbName, subfolder string, offset, limit int) (*kbase.NoteList, error)
	ValidateNote(ctx context.Context, kbName, notePath string) (*kbase.NoteResult, error)
}

// Deps are the toolset's dependencies, built once by the caller.
type Deps struct {
	Bases  Bases        // required
	Notes  Notes        // required
	Logger *slog.Logger // failures the caller cannot fix are logged here; nil: slog.Default()
}

// The domain service provides both interfaces.
var (
	_ Bases = (*kbase.Service)(nil)
	_ Notes = (*kbase.Service)(nil)
)

// NewDeps wires the toolset to a knowledge base service.
func NewDeps(s *kbase.Service, logger *slog.Logger) Deps {
	return Deps{Bases: s, Notes: s, Logger: logger}
}

func (d Deps) logger() *slog.Logger {
	if d.Logger == nil {
		return slog.Default()
	}
	return d.Logger
}
