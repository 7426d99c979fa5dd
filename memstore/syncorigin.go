package memstore

import (
	"context"
	"fmt"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// bucketSyncOrigins holds a syncOriginRecord per project.
const bucketSyncOrigins = "sync_origins"

type syncOriginRecord struct {
	Host string    `json:"host"`
	Path string    `json:"path"`
	At   time.Time `json:"at"`
}

// SyncOrigin returns where project's last full sync ran (core.SyncOrigins).
func (s *Store) SyncOrigin(ctx context.Context, project string) (core.SyncOrigin, error) {
	if err := s.check(ctx); err != nil {
		return core.SyncOrigin{}, fmt.Errorf("memstore: sync origin: %w", err)
	}
	var rec syncOriginRecord
	err := s.kv.View(func(tx *kv.Tx) error {
		_, err := tx.Get(bucketSyncOrigins, project, &rec)
		return err
	})
	if err != nil {
		return core.SyncOrigin{}, fmt.Errorf("memstore: sync origin of %s: %w", project, core.NewProviderError("read state", err))
	}
	return core.SyncOrigin{Host: rec.Host, Path: rec.Path, At: rec.At}, nil
}

// SaveSyncOrigin records o for project (core.SyncOrigins). It writes no
// note record, so the states' stamp stays (updateOutsideNotes).
func (s *Store) SaveSyncOrigin(ctx context.Context, project string, o core.SyncOrigin) error {
	if err := s.check(ctx); err != nil {
		return fmt.Errorf("memstore: save sync origin: %w", err)
	}
	rec := syncOriginRecord{Host: o.Host, Path: o.Path, At: o.At.UTC()}
	err := s.updateOutsideNotes(func(tx *kv.Tx) error { return tx.Put(bucketSyncOrigins, project, rec) })
	if err != nil {
		return fmt.Errorf("memstore: save sync origin of %s: %w", project, core.NewProviderError("write state", err))
	}
	return nil
}
