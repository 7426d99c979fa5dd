package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStatusShowsTheStore runs "vaultgraph status" after a sync: on Neo4j
// it lists the server, the note count, every schema migration and the
// indexes the queries need, all online; on the embedded store its state file.
func TestStatusShowsTheStore(t *testing.T) {
	t.Parallel()
	forEachStoreSharing(t, func(t *testing.T, st store) {
		vault := copyVault(t, nil)
		env := processEnv(t, st)
		code, _, stderr := runProc(t, env, append([]string{"sync", "--vault", vault}, st.args...)...)
		require.Equal(t, 0, code, stderr)

		code, out, stderr := runProc(t, env, append([]string{"status", "--vault", vault}, st.args...)...)
		require.Equal(t, 0, code, stderr)
		assert.Regexp(t, `(?m)^KEY\s+VALUE\s+SOURCE$`, out, "the settings come first")
		if st.neo4j == nil {
			assert.Regexp(t, `(?m)^store: embedded in `, out)
			assert.Regexp(t, `(?m)^  state file: vaultgraph-state\.db, \d+ KiB`, out)
			return
		}
		assert.Regexp(t, `(?m)^store: neo4j at bolt://`, out)
		assert.Regexp(t, `(?m)^  server: Neo4j 5\.\d+\.\d+ `, out)
		assert.Regexp(t, `(?m)^  notes: 13 in project "[0-9a-f-]{36}" \(.*, vault id [0-9a-f-]{36}\)$`, out)
		assert.Regexp(t, `(?m)^VERSION\s+APPLIED AT\s+NAME$`, out)
		assert.Regexp(t, `(?m)^1\s+\S+Z\s+note, ghost, counter and migration keys$`, out)
		for _, index := range []string{"note_key", "note_fulltext", "note_in_degree", "note_out_degree", "note_embedding"} {
			assert.Regexp(t, `(?m)^`+index+`\s+\S+\s+.*ONLINE$`, out, "index %s online", index)
		}

		// migrate applies nothing more; doctor sees the store and the vault.
		code, out, stderr = runProc(t, env, append([]string{"migrate"}, st.args...)...)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, out, "schema up to date: 0 migrations pending before")
		code, out, _ = runProc(t, env, append([]string{"doctor", "--vault", vault}, st.args...)...)
		assert.Equal(t, 0, code, "the example vault's broken links are warnings:\n%s", out)
		assert.Regexp(t, `(?m)^ok       store: Neo4j 5\.`, out)
		assert.Regexp(t, `(?m)^WARNING  vault: \d+ problems`, out)
		assert.Regexp(t, `(?m)^ok       graph: every note of the vault is in the graph`, out)
		code, out, _ = runProc(t, env, append([]string{"doctor", "--strict", "--vault", vault}, st.args...)...)
		assert.Equal(t, 1, code, "--strict fails on the warnings:\n%s", out)

		code, out, _ = runProc(t, env, "status", "--config-only", "--store", "neo4j")
		require.Equal(t, 0, code)
		assert.NotContains(t, out, "store: neo4j", "--config-only does not look at the store")
	})
}
