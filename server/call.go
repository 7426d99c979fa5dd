package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// Call invokes the tool name of srv in process, through a real MCP client
// session, so the call passes the same filters, middleware and argument
// checks as one from a remote client. args is the JSON object of
// arguments ("" or null for none). A tool error (isError) is a result, not
// an error; the error is for a call that could not be made (unknown tool,
// protocol failure).
func Call(ctx context.Context, srv *mcpserver.MCPServer, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	c, err := client.NewInProcessClient(srv)
	if err != nil {
		return nil, fmt.Errorf("server: call %s: %w", name, err)
	}
	defer func() { _ = c.Close() }()
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("server: call %s: start: %w", name, err)
	}
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "vaultgraph-call", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return nil, fmt.Errorf("server: call %s: initialize: %w", name, err)
	}
	var req mcp.CallToolRequest
	req.Params.Name = name
	if len(args) > 0 {
		if !json.Valid(args) {
			return nil, fmt.Errorf("server: call %s: arguments are not valid JSON", name)
		}
		req.Params.Arguments = args
	}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("server: call %s: %w", name, err)
	}
	return res, nil
}

// CallOver invokes the tool name through an MCP session on conn (a
// connection to the process that owns the vault's store), as Call does
// in process. With check, the tools the owner lists are checked first
// (check gets their names; its error is returned as it is): `vaultgraph
// call` so fails a mistyped name with the closest ones. The request
// carries a progress token, so that during the owner's first sync it
// waits for the sync (server.FirstSync) rather than answering at once
// from the store.
func CallOver(ctx context.Context, conn io.ReadWriteCloser, name string, args json.RawMessage, check func(listed []string) error) (*mcp.CallToolResult, error) {
	c := client.NewClient(transport.NewIO(conn, conn, nil))
	defer func() { _ = c.Close() }()
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "vaultgraph-call", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if check != nil {
		listed, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			return nil, fmt.Errorf("list tools: %w", err)
		}
		names := make([]string, len(listed.Tools))
		for i, t := range listed.Tools {
			names[i] = t.Name
		}
		if err := check(names); err != nil {
			return nil, err
		}
	}
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Meta = &mcp.Meta{ProgressToken: "call"}
	if len(args) > 0 {
		if !json.Valid(args) {
			return nil, fmt.Errorf("arguments are not valid JSON")
		}
		req.Params.Arguments = args
	}
	return c.CallTool(ctx, req)
}

// ResultText returns the text contents of res joined by newlines: the
// JSON answer of a vaultgraph tool, followed by a {"_warnings": ...} line
// when the answer carried warnings outside its shape.
func ResultText(res *mcp.CallToolResult) string {
	var texts []string
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
}
