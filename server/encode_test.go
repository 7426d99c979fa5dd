package server

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// decoded is v as a client decodes it: generic JSON values.
func decoded(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return v
}

var awkwardTexts = []string{
	"", "plain", `{"a":"b \"quoted\" \\ back"}`, "tab\tnew\nline\rcr\x00nul\x1fus",
	"<b>&amp;</b>", "line\u2028sep\u2029para", "Grüße, 日本語, 🙂", "bad \xff\xfe bytes", "cut \xe2\x80",
	"\xe2\x80\xa8", "ends in e2 \xe2",
}

// The direct encoding of a tool result says what json.Marshal says of it.
func TestToolResultEncodingMatchesEncodingJSON(t *testing.T) {
	for _, id := range []any{int64(7), "req-\"1\"", nil} {
		for _, text := range awkwardTexts {
			for _, structured := range []json.RawMessage{nil, json.RawMessage(`{"id":"a.md","content":"x\u2028y"}`)} {
				for _, isError := range []bool{false, true} {
					res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, IsError: isError}
					if structured != nil {
						res.StructuredContent = structured
					}
					msg := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), res)
					if !plainToolResult(res) {
						t.Fatalf("%q: not taken by the direct encoding", text)
					}
					got, err := encodeMessage(nil, msg)
					if err != nil {
						t.Fatal(err)
					}
					if bytes.Count(got, []byte("\n")) != 1 || got[len(got)-1] != '\n' {
						t.Fatalf("%q: not one line: %q", text, got)
					}
					want, err := json.Marshal(msg)
					if err != nil {
						t.Fatal(err)
					}
					if g, w := decoded(t, got), decoded(t, want); !reflect.DeepEqual(g, w) {
						t.Errorf("id %v text %q structured %s isError %v:\n got %s\nwant %s", id, text, structured, isError, got, want)
					}
				}
			}
		}
	}
}

// Results of other shapes are left to encoding/json.
func TestOtherResultsGoThroughEncodingJSON(t *testing.T) {
	for name, res := range map[string]*mcp.CallToolResult{
		"two contents":   {Content: []mcp.Content{mcp.NewTextContent("a"), mcp.NewTextContent("b")}},
		"image":          {Content: []mcp.Content{mcp.NewImageContent("AAAA", "image/png")}},
		"map structured": {Content: []mcp.Content{mcp.NewTextContent("{}")}, StructuredContent: map[string]any{"a": 1}},
		"meta":           {Result: mcp.Result{Meta: &mcp.Meta{AdditionalFields: map[string]any{"k": "v"}}}, Content: []mcp.Content{mcp.NewTextContent("x")}},
	} {
		if plainToolResult(res) {
			t.Errorf("%s: taken by the direct encoding", name)
		}
		msg := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(1)), res)
		got, err := encodeMessage(nil, msg)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(msg)
		if !bytes.Equal(got, append(want, '\n')) {
			t.Errorf("%s: got %s, want %s", name, got, want)
		}
	}
}
