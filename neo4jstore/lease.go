package neo4jstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// Leases choose, through Neo4j itself, the one process among many (serve
// replicas, a sync --watch mirror) that does a piece of shared work for a
// project: recomputing PageRank (ranks.go), and any other pass that should
// run once per vault rather than once per replica. A lease is a node
//
//	(:Lease {project, name, holder, expires})
//
// taken with one conditional write (lease_take): granted when nobody holds
// it, when the asker already does (a renewal), or when the holder's time
// ran out, by the server's clock. A holder that dies simply lets it expire;
// one that finishes gives it back (lease_release). Holders are this
// Store's holderID (host, process and a random part), so two Stores of one
// process are two holders.

// Lease is what TryLease answers.
type Lease struct {
	Held      bool          // the caller holds the lease now
	Holder    string        // who holds it (the caller when Held)
	Remaining time.Duration // until it expires, by the server's clock
}

var _ core.Leaser = (*Neo4jStore)(nil)

// newHolderID names this Store as a lease holder.
func newHolderID() string {
	host, _ := os.Hostname()
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// TryLease takes or renews the lease name of project for ttl, unless
// another holder has it (core.Leaser).
func (s *Neo4jStore) TryLease(ctx context.Context, project, name string, ttl time.Duration) (bool, error) {
	l, err := s.tryLease(ctx, project, name, ttl)
	return l.Held, err
}

func (s *Neo4jStore) tryLease(ctx context.Context, project, name string, ttl time.Duration) (Lease, error) {
	if name == "" || ttl <= 0 {
		return Lease{}, fmt.Errorf("neo4jstore: lease: %w", core.InvalidArgument("a lease needs a name and a positive time, got %q for %s", name, ttl))
	}
	var l Lease
	err := s.write(ctx, "take lease", func(t txn) error {
		r, err := t.single(stmtLeaseTake, map[string]any{
			"project": project, "name": name, "holder": s.holder, "ttl_ms": ttl.Milliseconds(),
		})
		if err != nil || r == nil {
			return err
		}
		held, _ := r.Values[0].(bool)
		l = Lease{Held: held, Holder: str(r.Values[1]), Remaining: time.Duration(num(r.Values[2])) * time.Millisecond}
		return nil
	})
	return l, err
}

// ReleaseLease gives the lease name of project back if this Store holds it
// (core.Leaser).
func (s *Neo4jStore) ReleaseLease(ctx context.Context, project, name string) error {
	return s.write(ctx, "release lease", func(t txn) error {
		_, err := t.collect(stmtLeaseRelease, map[string]any{"project": project, "name": name, "holder": s.holder})
		return err
	})
}
