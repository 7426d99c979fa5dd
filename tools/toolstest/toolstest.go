// Package toolstest helps the toolsets' tests call their tools the way a
// client does: through an MCP server, over mcp-go's in-process transport.
package toolstest

import (
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vaultgraph/vaultgraph/tools"
)

// Server is an MCP server offering ts and nothing else.
func Server(ts []tools.Tool) *mcpserver.MCPServer {
	srv := mcpserver.NewMCPServer("vaultgraph-test", "test", mcpserver.WithToolCapabilities(false), mcpserver.WithRecovery())
	srv.AddTools(tools.ServerTools(ts)...)
	return srv
}

// Client returns an initialized in-process client of srv, closed when t
// ends.
func Client(t testing.TB, srv *mcpserver.MCPServer) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(t.Context(), init); err != nil {
		t.Fatal(err)
	}
	return c
}
