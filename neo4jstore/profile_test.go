package neo4jstore

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"

	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
)

// TestProfileStatements prints PROFILE figures (db hits, rows, whether the
// plan sorts) of the statements that read or write derived data, on a
// benchSpec vault of VAULTGRAPH_PROFILE notes (loaded once into project
// "profile-<n>" and reused by later runs on the same server, e.g. one
// started with scripts/neo4j-local and reached through NEO4J_URI):
//
//	VAULTGRAPH_PROFILE=100000 go test ./neo4jstore -run TestProfileStatements -v
//
// It checks nothing: it is how the db hits quoted in commit messages and
// docs/DECISIONS.md are measured.
func TestProfileStatements(t *testing.T) {
	t.Parallel()
	size, _ := strconv.Atoi(os.Getenv("VAULTGRAPH_PROFILE"))
	if size <= 0 {
		t.Skip("set VAULTGRAPH_PROFILE=<notes> to profile statements")
	}
	s := openStore(t)
	ctx := context.Background()
	project := fmt.Sprintf("profile-%d", size)
	notes := benchSpec(size).generate()
	if n, err := s.CountNotes(ctx, project); err != nil || n != len(notes) {
		if err := s.UpsertNotesStaged(ctx, project, notes, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.computeRanks(ctx, project); err != nil { // a stored ranking for ranks_read
		t.Fatal(err)
	}
	srv := neo4jtest.Get(t)
	auth := neo4j.NoAuth()
	if srv.User != "" {
		auth = neo4j.BasicAuth(srv.User, srv.Password, "")
	}
	driver, err := neo4j.NewDriverWithContext(srv.URI, auth, func(*config.Config) {})
	if err != nil {
		t.Fatal(err)
	}
	defer driver.Close(ctx)
	ids := make([]string, 0, 50)
	for i := range 50 {
		ids = append(ids, notes[i*(size/50)].ID)
	}
	cases := profileCases(project, ids)
	if dir := os.Getenv("VAULTGRAPH_PROFILE_BEFORE"); dir != "" {
		// Statements as they were (files of an older cypher folder), for
		// before/after figures: profiled with the same parameters.
		for _, c := range slices.Clone(cases) {
			if text, err := os.ReadFile(dir + "/" + c.st.name + ".cypher"); err == nil {
				cases = append(cases, profileCase{st: statement{name: c.st.name + " (before)", text: string(text)}, params: c.params, rollback: c.rollback})
			}
		}
	}
	for _, c := range cases {
		session := driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: srv.Database})
		var summary neo4j.ResultSummary
		_, err := session.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
			res, err := tx.Run(ctx, "PROFILE "+c.st.text, c.params)
			if err != nil {
				return nil, err
			}
			if _, err = res.Collect(ctx); err != nil {
				return nil, err
			}
			if summary, err = res.Consume(ctx); err != nil {
				return nil, err
			}
			if c.rollback {
				return nil, errRollback
			}
			return nil, nil
		})
		_ = session.Close(ctx)
		if err != nil && err != errRollback {
			t.Fatalf("%s: %v", c.st.name, err)
		}
		hits, ops := planHits(summary.Profile())
		t.Logf("%-28s db hits %9d  sorts %-5v  ops %s", c.st.name, hits, strings.Contains(ops, "Sort"), ops)
	}
}

var errRollback = fmt.Errorf("rollback")

type profileCase struct {
	st       statement
	params   map[string]any
	rollback bool // a write: profiled, then rolled back
}

// planHits sums a profiled plan's db hits and lists its operators.
func planHits(p neo4j.ProfiledPlan) (int64, string) {
	if p == nil {
		return 0, ""
	}
	hits := p.DbHits()
	ops := []string{p.Operator()}
	for _, c := range p.Children() {
		h, o := planHits(c)
		hits += h
		ops = append(ops, o)
	}
	return hits, strings.Join(ops, " ")
}

func profileCases(project string, ids []string) []profileCase {
	p := map[string]any{"project": project}
	return []profileCase{
		{st: stmtGraphVersion, params: p},
		{st: stmtCatalogLoad, params: p},
		{st: stmtCatalogNotes, params: with(with(p, "ids", ids[:10]), "head", true)},
		{st: stmtWriteBumpVersion, params: with(with(p, "changed", ids), "writer", "profile"), rollback: true},
		{st: stmtChangesFollow, params: with(p, "since", int64(0))},
		{st: stmtCatalogChanges, params: with(with(p, "since", int64(0)), "max_changes", int64(200))},
		{st: stmtCatalogRows, params: with(p, "ids", ids)},
		{st: stmtRanksState, params: p},
		{st: stmtRanksRead, params: with(p, "fetch", int64(26))},
		{st: stmtRanksGraph, params: p},
		{st: stmtProjectSettled, params: p, rollback: true},
		{st: stmtLeaseTake, params: map[string]any{"project": project, "name": "profile", "holder": "me", "ttl_ms": int64(1000)}, rollback: true},
	}
}
