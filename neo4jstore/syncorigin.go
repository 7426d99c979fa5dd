package neo4jstore

import (
	"context"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// SyncOrigin runs sync_origin_read (core.SyncOrigins).
func (s *Neo4jStore) SyncOrigin(ctx context.Context, project string) (core.SyncOrigin, error) {
	var o core.SyncOrigin
	err := s.read(ctx, "read sync origin", func(t txn) error {
		records, err := t.collect(stmtSyncOriginRead, map[string]any{"project": project})
		if err != nil || len(records) == 0 {
			return err
		}
		r := records[0]
		o.Host, o.Path = str(r.Values[0]), str(r.Values[1])
		o.At, _ = r.Values[2].(time.Time)
		return nil
	})
	return o, err
}

// SaveSyncOrigin runs sync_origin_save (core.SyncOrigins).
func (s *Neo4jStore) SaveSyncOrigin(ctx context.Context, project string, o core.SyncOrigin) error {
	return s.write(ctx, "save sync origin", func(t txn) error {
		_, err := t.collect(stmtSyncOriginSave, map[string]any{
			"project": project, "host": o.Host, "path": o.Path, "at": o.At.UTC(),
		})
		return err
	})
}
