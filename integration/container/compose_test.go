// Package container checks vaultgraph's container image and compose file as
// far as a machine without a Docker engine can: the compose file against the
// Compose specification (the reference loader docker compose itself uses),
// the Dockerfile's instructions, and the image's binary run the way the image
// runs it (non-root, from an otherwise empty read-only root, vault and state
// mounted). The testcontainers example runs the real image where a Docker
// engine answers and skips elsewhere. docs/CONTAINER.md lists what is not
// checked here.
package container

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/schema"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// repoRoot is the repository's root folder.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// secretKeys are variables whose values must come from env files only.
var secretKeys = []string{"VAULTGRAPH_NEO4J_PASSWORD", "VAULTGRAPH_HTTP_TOKENS", "VAULTGRAPH_EMBEDDING_API_KEY", "NEO4J_AUTH"}

func TestComposeFileFollowsTheComposeSpecification(t *testing.T) {
	root := repoRoot(t)
	raw, err := os.ReadFile(filepath.Join(root, "compose.yaml"))
	require.NoError(t, err)

	// The schema alone, on the file as written.
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &doc))
	require.NoError(t, schema.Validate(doc), "compose.yaml against the Compose specification's JSON schema")
	for _, key := range secretKeys {
		assert.NotContains(t, string(raw), key+":", "%s is set in compose.yaml; secrets come from the env files", key)
	}

	// The whole load docker compose does (interpolation, env files, merge
	// of the shared block, normalization, consistency), in a folder laid
	// out as a team would: compose.yaml and the two env files made from
	// their examples.
	dir := t.TempDir()
	for src, dst := range map[string]string{
		"compose.yaml":            "compose.yaml",
		"vaultgraph.env.example":  "vaultgraph.env",
		"neo4j.env.example":       "neo4j.env",
		"Dockerfile":              "Dockerfile",
		"scripts/dist/main.go":    "scripts/dist/main.go",
		"cmd/vaultgraph/main.go":  "cmd/vaultgraph/main.go",
		"examples/vault/Home.md":  "vault/Home.md",
		"scripts/dist/archive.go": "scripts/dist/archive.go",
	} {
		data, err := os.ReadFile(filepath.Join(root, src))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, dst)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, dst), data, 0o600))
	}
	opts, err := cli.NewProjectOptions([]string{filepath.Join(dir, "compose.yaml")},
		cli.WithWorkingDirectory(dir),
		cli.WithEnv([]string{"VAULT_DIR=/srv/notes"}),
	)
	require.NoError(t, err)
	p, err := opts.LoadProject(t.Context())
	require.NoError(t, err)

	assert.Equal(t, "vaultgraph", p.Name)
	assert.ElementsMatch(t, []string{"neo4j", "server", "worker"}, p.ServiceNames())

	neo4j := p.Services["neo4j"]
	assert.True(t, strings.HasPrefix(neo4j.Image, "neo4j:5.26"), neo4j.Image)
	require.NotNil(t, neo4j.HealthCheck)
	assert.Equal(t, "neo4j/change-me", *neo4j.Environment["NEO4J_AUTH"], "from neo4j.env")

	server, worker := p.Services["server"], p.Services["worker"]
	assert.Equal(t, types.ShellCommand{"serve"}, server.Command)
	assert.Equal(t, types.ShellCommand{"sync", "--watch"}, worker.Command)
	assert.Equal(t, "0.0.0.0:8080", *server.Environment["VAULTGRAPH_HTTP_ADDR"])
	assert.Nil(t, worker.Environment["VAULTGRAPH_HTTP_ADDR"], "the worker serves nothing")
	for _, svc := range []types.ServiceConfig{server, worker} {
		t.Run(svc.Name, func(t *testing.T) {
			assert.True(t, strings.HasPrefix(svc.Image, "ghcr.io/vaultgraph/vaultgraph:"), svc.Image)
			require.NotNil(t, svc.Build, "builds from the Dockerfile when the image is not pulled")
			assert.Equal(t, "65532:65532", svc.User, "non-root")
			assert.True(t, svc.ReadOnly, "read-only root filesystem")
			assert.Contains(t, svc.Tmpfs, "/tmp")
			assert.Equal(t, []string{"ALL"}, svc.CapDrop)
			assert.Contains(t, svc.SecurityOpt, "no-new-privileges:true")
			assert.Equal(t, "neo4j", *svc.Environment["VAULTGRAPH_STORE"])
			assert.Equal(t, "bolt://neo4j:7687", *svc.Environment["VAULTGRAPH_NEO4J_URI"])
			assert.Equal(t, "change-me", *svc.Environment["VAULTGRAPH_NEO4J_PASSWORD"], "from vaultgraph.env")
			assert.NotNil(t, svc.Environment["VAULTGRAPH_HTTP_TOKENS"], "from vaultgraph.env")
			assert.Equal(t, types.ServiceConditionHealthy, svc.DependsOn["neo4j"].Condition)
			var targets []string
			for _, v := range svc.Volumes {
				targets = append(targets, v.Target)
				if v.Target == "/vault" {
					assert.Equal(t, "/srv/notes", v.Source, "VAULT_DIR is the vault")
				}
			}
			assert.True(t, slices.Contains(targets, "/vault") && slices.Contains(targets, "/state"), "%v", targets)
		})
	}
	require.Len(t, server.Ports, 1)
	assert.Equal(t, uint32(8080), server.Ports[0].Target)

	t.Run("a missing env file stops compose", func(t *testing.T) {
		require.NoError(t, os.Remove(filepath.Join(dir, "vaultgraph.env")))
		opts, err := cli.NewProjectOptions([]string{filepath.Join(dir, "compose.yaml")}, cli.WithWorkingDirectory(dir))
		require.NoError(t, err)
		_, err = opts.LoadProject(t.Context())
		assert.ErrorContains(t, err, "vaultgraph.env")
	})
}
