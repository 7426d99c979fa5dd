package container

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"
	tcneo4j "github.com/testcontainers/testcontainers-go/modules/neo4j"
	"github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"
	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
)

// TestExampleTestcontainers is the example for teams whose integration
// suites use testcontainers-go: it starts Neo4j 5.26 and the vaultgraph image
// (built from this repository's Dockerfile; use
// ghcr.io/vaultgraph/vaultgraph:<version> instead in your own suite) on one
// network, copies a vault in, and calls a tool over streamable HTTP with a
// bearer token. It runs where a Docker engine answers and skips elsewhere,
// saying why (our CI machines have none).
func TestExampleTestcontainers(t *testing.T) {
	if ok, reason := neo4jtest.DockerAvailable(); !ok {
		t.Skipf("no Docker engine answers (%s): the example needs one to start containers", reason)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	const password, token = "example-password", "example-token"

	nw, err := network.New(ctx)
	require.NoError(t, err)
	testcontainers.CleanupNetwork(t, nw)

	db, err := tcneo4j.Run(ctx, "neo4j:5.26-community",
		tcneo4j.WithAdminPassword(password),
		network.WithNetwork([]string{"neo4j"}, nw),
	)
	testcontainers.CleanupContainer(t, db)
	require.NoError(t, err)

	// The vault: the repository's example, copied into the /vault volume.
	root := repoRoot(t)
	var files []testcontainers.ContainerFile
	vault := filepath.Join(root, "examples", "vault")
	require.NoError(t, filepath.WalkDir(vault, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(vault, p)
		if err != nil {
			return err
		}
		files = append(files, testcontainers.ContainerFile{HostFilePath: p, ContainerFilePath: "/vault/" + filepath.ToSlash(rel), FileMode: 0o644})
		return nil
	}))

	vg, err := testcontainers.Run(ctx, "",
		testcontainers.WithDockerfile(testcontainers.FromDockerfile{Context: root, Dockerfile: "Dockerfile", KeepImage: true}),
		network.WithNetwork([]string{"vaultgraph"}, nw),
		testcontainers.WithEnv(map[string]string{
			"VAULTGRAPH_STORE":          "neo4j",
			"VAULTGRAPH_NEO4J_URI":      "bolt://neo4j:7687",
			"VAULTGRAPH_NEO4J_PASSWORD": password,
			"VAULTGRAPH_HTTP_ADDR":      "0.0.0.0:8080",
			"VAULTGRAPH_HTTP_TOKENS":    token,
		}),
		testcontainers.WithFiles(files...),
		testcontainers.WithExposedPorts("8080/tcp"),
		testcontainers.WithWaitStrategy(wait.ForHTTP("/readyz").WithPort("8080/tcp").WithStartupTimeout(3*time.Minute)),
	)
	testcontainers.CleanupContainer(t, vg)
	require.NoError(t, err)

	endpoint, err := vg.PortEndpoint(ctx, "8080/tcp", "http")
	require.NoError(t, err)
	tr, err := transport.NewStreamableHTTP(endpoint+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	require.NoError(t, err)
	c := client.NewClient(tr)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.Start(ctx))
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "testcontainers-example", Version: "1"}
	_, err = c.Initialize(ctx, init)
	require.NoError(t, err)

	var req mcp.CallToolRequest
	req.Params.Name = "get_node"
	req.Params.Arguments = map[string]any{"id": "Home.md", "depth": 1}
	res, err := c.CallTool(ctx, req)
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res.Content)
	var node struct {
		ID string `json:"id"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Content[0].(mcp.TextContent).Text), &node))
	require.Equal(t, "home.md", node.ID)
}
