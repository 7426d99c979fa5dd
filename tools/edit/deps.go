package edit

import (
	"context"
	"log/slog"

	"github.com/vaultgraph/vaultgraph/activity"
	"github.com/vaultgraph/vaultgraph/noteedit"
)

// Editor is what edit_note needs.
type Editor interface {
	Edit(ctx context.Context, req noteedit.Request) (*noteedit.Result, error)
}

// Changes is what recent_changes needs.
type Changes interface {
	Recent(ctx context.Context, q activity.Query) (*activity.Page, error)
}

// Deps are the toolset's dependencies, built once by the caller.
type Deps struct {
	Editor  Editor       // nil: edit_note is not offered
	Changes Changes      // nil: recent_changes is not offered
	Logger  *slog.Logger // provider failures are logged here; nil: slog.Default()
}

var (
	_ Editor  = (*noteedit.Service)(nil)
	_ Changes = (*activity.Service)(nil)
)

func (d Deps) logger() *slog.Logger {
	if d.Logger == nil {
		return slog.Default()
	}
	return d.Logger
}
