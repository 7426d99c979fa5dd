package core

import (
	"context"
	"time"
)

// Leaser is implemented by stores that many processes share (Neo4j): it
// picks one process among them to do a piece of work for a project, such as
// recomputing derived data or running a pass over the vault once rather
// than once per replica. A lease is held for a time and renewed by asking
// again before it runs out; a holder that dies lets it expire.
type Leaser interface {
	// TryLease takes the lease name of project for ttl, or renews it when
	// the caller holds it already, and reports whether the caller holds it
	// now. Another holder's lease is never taken before it expires.
	TryLease(ctx context.Context, project, name string, ttl time.Duration) (bool, error)
	// ReleaseLease gives the lease back if the caller holds it, so another
	// process may take it at once.
	ReleaseLease(ctx context.Context, project, name string) error
}
