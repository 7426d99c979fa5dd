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
// states read are those of the version it was recorded at; it is recorded
// only when nothing was committed since the states were read. An
// in-memory store has no versions and records none.

// stampsBucket holds each project's stamp under the project's key.
const stampsBucket = "states-stamps"

// errNoStamp rolls back a stamp that must not be recorded.
var errNoStamp = errors.New("memstore: states changed since they were read")

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
	read := s.statesVersion(project)
	if read == 0 {
		return nil
	}
	err := s.kv.Update(func(tx *kv.Tx) error {
		v := tx.Version() // this commit's: the one before it is v-1
		if v == 0 || v-1 != read {
			return errNoStamp
		}
		return tx.PutRaw(stampsBucket, project, append(binary.AppendUvarint(nil, v), stamp...))
	})
	if err != nil && !errors.Is(err, errNoStamp) {
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
