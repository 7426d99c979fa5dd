package envelope

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/require"
)

func text(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, r.Content, 1)
	tc, ok := r.Content[0].(mcp.TextContent)
	require.True(t, ok)
	return tc.Text
}

func TestOKWrapsDataAndKeepsMarkdownReadable(t *testing.T) {
	r := OK(map[string]any{"content": "a <b> & c"})
	require.False(t, r.IsError)
	require.JSONEq(t, `{"success":true,"data":{"content":"a <b> & c"}}`, text(t, r))
	require.Contains(t, text(t, r), "a <b> & c", "no HTML escaping")
	require.JSONEq(t, text(t, r), string(r.StructuredContent.(json.RawMessage)))
}

func TestFailSetsIsErrorAndTheMessage(t *testing.T) {
	r := Failf("Memory not found: %s", "m1")
	require.True(t, r.IsError)
	require.JSONEq(t, `{"success":false,"error":"Memory not found: m1"}`, text(t, r))
}
