package neo4jstore

import (
	"net/url"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Causal consistency across replicas (issue 44.9).
//
// Every Store keeps its own bookmark manager, so its reads see its own
// writes on any deployment. Another process's writes are a different
// matter on a cluster (neo4j:// to a cluster, or Aura): a read session
// goes to a follower, which may not have applied a commit the leader has
// acknowledged to another replica, so replica B could answer without
// replica A's write for the cluster's replication lag.
//
// Ways to close that gap: share bookmarks through Neo4j (A stores its
// bookmark after each write; but B can only read that bookmark reliably
// from the leader, one more round trip before every read), or read the
// change counter from the leader before each read (the same round trip,
// and a follower cannot be told to wait for a counter, only for a
// bookmark). Both cost a leader round trip per read, so the store sends
// the read itself to the leader instead: on a routing URI every session
// is opened in write access mode, and the driver routes it to the
// database's leader (and to the new one after a leader switch). A read
// that starts after any replica's write was acknowledged sees it, at no
// extra round trip; the price is that followers serve no reads, which
// vaultgraph's small indexed reads do not need. On bolt:// (one server)
// the mode changes nothing.

// sessionMode is the access mode a session of mode opens with: reads go
// to the leader on a routing URI (see above).
func (s *Neo4jStore) sessionMode(mode neo4j.AccessMode) neo4j.AccessMode {
	if routing(s.cfg.URI) {
		return neo4j.AccessModeWrite
	}
	return mode
}

// routing reports whether uri uses a routing scheme (neo4j://,
// neo4j+s://, neo4j+ssc://).
func routing(uri string) bool {
	u, err := url.Parse(uri)
	return err == nil && strings.HasPrefix(u.Scheme, "neo4j")
}
