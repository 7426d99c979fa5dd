package neo4jstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/vaultgraph/vaultgraph/core"
)

// migration is one versioned step of the schema. Its statements are
// idempotent (IF NOT EXISTS), so a step interrupted before it was recorded
// simply runs again at the next start; two processes starting together run
// the same statements (schemaWrite runs one again when the other process's
// index appeared between its check and its commit) and the record is
// MERGEd once.
type migration struct {
	version    int
	name       string
	statements []statement
}

// migrations lists every schema step in order. Append only: a released
// version never changes, because databases remember which ones ran.
var migrations = []migration{
	{1, "note, ghost, counter and migration keys", []statement{
		stmtSchemaMigrationKey, stmtSchemaNoteKey, stmtSchemaUnresolvedKey, stmtSchemaGraphMetaKey,
	}},
	{2, "degree indexes for hubs", []statement{stmtSchemaNoteInDegree, stmtSchemaNoteOutDegree}},
	{3, "fulltext index on note title and content", []statement{stmtSchemaNoteFulltext}},
	{4, "vector index on note embeddings", []statement{stmtSchemaNoteEmbedding}},
	{5, "note fulltext index updated after commit", []statement{stmtSchemaNoteFulltextDrop, stmtSchemaNoteFulltextAsync}},
	{6, "vector revisions for in-process mirrors", []statement{stmtSchemaVectorMetaKey, stmtSchemaNoteVectorRev}},
	chunkMigration,         // 10: document chunks (chunks.go)
	chunkFulltextMigration, // 11: keyword search over chunks (chunks.go)
	// 20-29: memories (spec 004).
	{20, "memory keys and history index", []statement{
		stmtSchemaMemoryKey, stmtSchemaMemoryContent, stmtSchemaMemoryEventKey, stmtSchemaMemoryEventMemory,
	}},
	// 30-39: entities and projects (spec 003).
	{30, "entity id index and project key", []statement{stmtSchemaNoteEntityID, stmtSchemaProjectKey}},
	{31, "entity lists on older notes, which the next sync re-parses", []statement{stmtMigrationEntityReparse}},
	// 40-49: the change log (recent_changes).
	{40, "note change log keys and note index", []statement{stmtSchemaNoteChangeKey, stmtSchemaNoteChangeNote}},
	// 50-59: derived data shared by replicas (catalog.go, ranks.go, lease.go).
	{50, "graph change log key", []statement{stmtSchemaGraphChangeKey}},
	{51, "leases and stored PageRank", []statement{stmtSchemaLeaseKey, stmtSchemaGraphRankKey}},
}

// awaitIndexesSeconds bounds the wait for new indexes to come online at
// start-up; populating them over a large existing graph takes a while.
const awaitIndexesSeconds = 300

// migrate applies the migrations the database has not recorded yet, then
// waits for the indexes they created.
func (s *Neo4jStore) migrate(ctx context.Context) error {
	applied, err := s.appliedMigrations(ctx)
	if err != nil {
		return err
	}
	done := make(map[int]bool, len(applied))
	for _, m := range applied {
		done[m.Version] = true
	}
	ran := false
	for _, m := range migrations {
		if done[m.version] {
			continue
		}
		if err := s.apply(ctx, m); err != nil {
			return err
		}
		s.log.Info("neo4j schema migration applied", "version", m.version, "name", m.name)
		ran = true
	}
	if !ran {
		return nil
	}
	return s.awaitIndexes(ctx)
}

// apply runs one migration. Schema statements cannot share a transaction
// with data writes, so each runs alone and the record comes last.
func (s *Neo4jStore) apply(ctx context.Context, m migration) error {
	op := fmt.Sprintf("schema migration %d (%s)", m.version, m.name)
	params := map[string]any{"dimensions": int64(s.cfg.VectorDimensions)}
	for _, st := range m.statements {
		if err := s.schemaWrite(ctx, op, st, params); err != nil {
			return err
		}
	}
	return s.write(ctx, op, func(t txn) error {
		_, err := t.collect(stmtMigrationRecord, map[string]any{"version": int64(m.version), "name": m.name})
		return err
	})
}

// schemaWrite runs one schema statement. Two processes creating the same
// index or constraint at once (a serve and a sync worker started together
// on a new database) both pass IF NOT EXISTS and the second to commit fails
// with an "already exists" error; run again, the statement sees the
// other's index and does nothing.
func (s *Neo4jStore) schemaWrite(ctx context.Context, op string, st statement, params map[string]any) error {
	var err error
	for attempt := 1; attempt <= 5; attempt++ {
		err = s.write(ctx, op, func(t txn) error {
			_, err := t.collect(st, params)
			return err
		})
		var dbErr *neo4j.Neo4jError
		if err == nil || !errors.As(err, &dbErr) || !strings.HasPrefix(dbErr.Code, "Neo.ClientError.Schema.") || !strings.HasSuffix(dbErr.Code, "AlreadyExists") {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt) * 50 * time.Millisecond):
		}
	}
	return err
}

func (s *Neo4jStore) awaitIndexes(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, (awaitIndexesSeconds+10)*time.Second)
	defer cancel()
	session := s.driver().NewSession(ctx, neo4j.SessionConfig{DatabaseName: s.cfg.Database, BookmarkManager: s.bookmarks})
	defer func() { _ = session.Close(context.WithoutCancel(ctx)) }()
	// A procedure call that waits, run outside a transaction function so
	// Config.Timeout does not cut it short.
	res, err := session.Run(ctx, stmtSchemaAwaitIndexes.text, map[string]any{"seconds": int64(awaitIndexesSeconds)})
	if err == nil {
		_, err = res.Consume(ctx)
	}
	if err != nil {
		return fmt.Errorf("neo4jstore: %w", core.NewProviderError("await indexes", err))
	}
	return nil
}

// Migration is a schema step recorded in the database.
type Migration struct {
	Version   int
	Name      string
	AppliedAt time.Time
}

// appliedMigrations lists the recorded migrations, oldest first.
func (s *Neo4jStore) appliedMigrations(ctx context.Context) ([]Migration, error) {
	var out []Migration
	err := s.read(ctx, "list schema migrations", func(t txn) error {
		records, err := t.collect(stmtMigrationList, nil)
		if err != nil {
			return err
		}
		out = make([]Migration, 0, len(records))
		for _, r := range records {
			m := Migration{Version: int(num(r.Values[0])), Name: str(r.Values[1])}
			m.AppliedAt, _ = r.Values[2].(time.Time)
			out = append(out, m)
		}
		return nil
	})
	return out, err
}
