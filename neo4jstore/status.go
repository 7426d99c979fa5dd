package neo4jstore

import (
	"context"
	"errors"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Status describes the database behind a Store, for `vaultgraph status`.
type Status struct {
	URI           string
	ServerVersion string      // e.g. "5.26.0"
	Edition       string      // "community" or "enterprise"
	Database      string      // "" means the server's default database
	Migrations    []Migration // applied, by version
	Pending       []Migration // this version's migrations the database has not run yet (AppliedAt zero)
	Indexes       []Index
}

// Index is one index of the database (including those that back
// constraints) and how far it is built.
type Index struct {
	Name              string
	Type              string // RANGE, FULLTEXT, VECTOR, LOOKUP, ...
	EntityType        string // NODE or RELATIONSHIP
	LabelsOrTypes     []string
	Properties        []string
	State             string  // ONLINE, POPULATING or FAILED
	PopulationPercent float64 // 100 once ONLINE
	// Options holds the index settings worth showing, e.g. the vector
	// dimensions and similarity function.
	Options map[string]any
}

// Status reports the server, the applied schema migrations and the state
// of every index, in one read transaction.
func (s *Neo4jStore) Status(ctx context.Context) (Status, error) {
	st := Status{URI: s.cfg.URI, Database: s.cfg.Database}
	err := s.read(ctx, "status", func(t txn) error {
		st.ServerVersion, st.Edition, st.Indexes = "", "", nil
		components, err := t.collect(stmtStatusComponents, nil)
		if err != nil {
			return err
		}
		for _, r := range components {
			if str(r.Values[0]) == "Neo4j Kernel" {
				st.ServerVersion, st.Edition = str(r.Values[1]), str(r.Values[2])
			}
		}
		indexes, err := t.collect(stmtStatusIndexes, nil)
		if err != nil {
			return err
		}
		for _, r := range indexes {
			m := r.AsMap()
			idx := Index{
				Name:          str(m["name"]),
				Type:          str(m["type"]),
				EntityType:    str(m["entityType"]),
				LabelsOrTypes: strs(m["labelsOrTypes"]),
				Properties:    strs(m["properties"]),
				State:         str(m["state"]),
			}
			idx.PopulationPercent, _ = m["populationPercent"].(float64)
			if opts, ok := m["options"].(map[string]any); ok {
				idx.Options, _ = opts["indexConfig"].(map[string]any)
			}
			st.Indexes = append(st.Indexes, idx)
		}
		return nil
	})
	if err != nil {
		return Status{}, err
	}
	st.Migrations, err = s.appliedMigrations(ctx)
	if err != nil && !errors.As(err, new(*neo4j.Neo4jError)) {
		return Status{}, err
	}
	// A database never migrated has no migration records (or not even
	// their label): every migration is pending.
	done := make(map[int]bool, len(st.Migrations))
	for _, m := range st.Migrations {
		done[m.Version] = true
	}
	for _, m := range migrations {
		if !done[m.version] {
			st.Pending = append(st.Pending, Migration{Version: m.version, Name: m.name})
		}
	}
	return st, nil
}
