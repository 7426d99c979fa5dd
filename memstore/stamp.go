package memstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// The stamps of core.StatesStamper: a project's stamp is kept with the
// version of the file (kv.Tx.Version, bbolt's transaction ID: every commit
// moves it) at which it was written, and NoteStates remembers the version
// it read the project's states at. A stamp is given back only when the
// states read are those of the version it was recorded at. The caller
// vouches for the states as they are when it stamps (those it read, and
// its own writes since: the vault's index after a sync); the store
// records the stamp only if no other opener committed since this one
// opened the file or last committed (kv.Tx.Own). An in-memory store has
// no versions and records none.

// stampsBucket holds each project's stamp under the project's key.
const stampsBucket = "states-stamps"

// errNoStamp rolls back a stamp that must not be recorded; errStamped
// one that is recorded already.
var (
	errNoStamp = errors.New("memstore: the file was written by another opener")
	errStamped = errors.New("memstore: stamped already")
)

// statesRead records the version at which the project's last NoteStates
// read every state (0: unknown, or read across several versions).
func (s *Store) statesRead(project string, version uint64) {
	s.stamps.Lock()
	defer s.stamps.Unlock()
	if s.stamps.read == nil {
		s.stamps.read = map[string]uint64{}
	}
	s.stamps.read[project] = version
}

func (s *Store) statesVersion(project string) uint64 {
	s.stamps.Lock()
	defer s.stamps.Unlock()
	return s.stamps.read[project]
}

// StampStates records stamp for the project (core.StatesStamper).
func (s *Store) StampStates(ctx context.Context, project, stamp string) error {
	if err := s.check(ctx); err != nil {
		return fmt.Errorf("memstore: stamp states: %w", err)
	}
	// The table of link targets (targets.go) is written with the stamp,
	// from the graph in memory, under its read lock: a writer takes the
	// graph's lock before its transaction, so this one does too.
	s.mu.RLock()
	g := s.projects[project]
	s.mu.RUnlock()
	if g != nil {
		g.mu.RLock()
		defer g.mu.RUnlock()
	}
	err := s.kv.Update(func(tx *kv.Tx) error {
		v := tx.Version() // this commit's: the one before it is v-1
		if v == 0 || v-1 != tx.Own() {
			return errNoStamp
		}
		withTable := g != nil && !g.dropped && g.linked()
		if rec := tx.GetRaw(stampsBucket, project); rec != nil {
			if sv, n := binary.Uvarint(rec); n > 0 && sv == v-1 && string(rec[n:]) == stamp &&
				(!withTable || tx.GetRaw(targetsBucket, project) != nil) {
				// Recorded at the last commit, which was this opener's,
				// with a table of targets (written with the stamp, so
				// current; a store stamped before tables were written
				// gets one now): nothing to commit (a process stamps
				// again when it stops, mostly with nothing written
				// since its sync).
				return errStamped
			}
		}
		if withTable {
			if err := putTargetTable(tx, project, g.targetTable()); err != nil {
				return err
			}
		}
		return tx.PutRaw(stampsBucket, project, append(binary.AppendUvarint(nil, v), stamp...))
	})
	if err != nil && !errors.Is(err, errNoStamp) && !errors.Is(err, errStamped) {
		return fmt.Errorf("memstore: stamp states: %w", core.NewProviderError("write state", err))
	}
	return nil
}

// StatesStamp returns the project's stamp if the last NoteStates read the
// states it was recorded with (core.StatesStamper).
func (s *Store) StatesStamp(ctx context.Context, project string) (string, error) {
	if err := s.check(ctx); err != nil {
		return "", fmt.Errorf("memstore: states stamp: %w", err)
	}
	read := s.statesVersion(project)
	if read == 0 {
		return "", nil
	}
	var stamp string
	err := s.kv.View(func(tx *kv.Tx) error {
		rec := tx.GetRaw(stampsBucket, project)
		v, n := binary.Uvarint(rec)
		if n > 0 && v == read {
			stamp = string(rec[n:])
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("memstore: states stamp: %w", core.NewProviderError("read state", err))
	}
	return stamp, nil
}

// updateOutsideNotes runs fn in a write transaction that writes no note
// record (a project record, the keyword index, vectors, the change log):
// the notes' states stay as they were, so every stamp recorded at the
// commit just before this one is carried to this one, in the same
// transaction. Without it the project record written after a first sync,
// or the vectors an indexer writes after a restart, would withdraw the
// stamp the sync had just recorded. A stamp older than the previous
// commit is not carried: something was written between.
func (s *Store) updateOutsideNotes(fn func(tx *kv.Tx) error) error {
	return s.kv.Update(func(tx *kv.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return carryStamps(tx)
	})
}

// carryStamps moves the stamps recorded at the commit before tx's to tx's
// version.
func carryStamps(tx *kv.Tx) error {
	v := tx.Version()
	if v == 0 || !tx.HasBucket(stampsBucket) {
		return nil
	}
	type carried struct{ project, stamp string }
	var current []carried
	err := tx.ForEachRaw(stampsBucket, func(k, rec []byte) error {
		if sv, n := binary.Uvarint(rec); n > 0 && sv == v-1 {
			current = append(current, carried{string(k), string(rec[n:])})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, c := range current {
		if err := tx.PutRaw(stampsBucket, c.project, append(binary.AppendUvarint(nil, v), c.stamp...)); err != nil {
			return err
		}
	}
	return nil
}
