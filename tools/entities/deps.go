package entities

import (
	"context"
	"log/slog"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// DefaultTimeout bounds every call (spec 003: "Timeout enforcement at 30
// seconds per request").
const DefaultTimeout = 30 * time.Second

// Projects is what the toolset needs of the served projects.
type Projects interface {
	// List returns the served projects in list_projects order.
	List(ctx context.Context) ([]core.Project, error)
	// Lookup returns the served project with this UUID.
	Lookup(id string) (core.Project, bool)
}

var _ Projects = (*core.ProjectCatalog)(nil)

// Deps are the toolset's dependencies, built once by the caller.
type Deps struct {
	Projects Projects          // required
	Entities core.EntityReader // required; asked with the project's Key
	Logger   *slog.Logger      // failures the caller cannot fix are logged here; nil: slog.Default()
	Timeout  time.Duration     // per call; 0 means DefaultTimeout
}

func (d Deps) logger() *slog.Logger {
	if d.Logger == nil {
		return slog.Default()
	}
	return d.Logger
}

func (d Deps) timeout() time.Duration {
	if d.Timeout <= 0 {
		return DefaultTimeout
	}
	return d.Timeout
}
