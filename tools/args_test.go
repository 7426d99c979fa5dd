package tools

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

type argsInput struct {
	ID    string `json:"id"`
	Limit *Int   `json:"limit"`
}

func argsTool() mcp.Tool {
	return mcp.NewTool("t",
		mcp.WithString("id", mcp.Required()),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(50)))
}

func call(raw string) mcp.CallToolRequest {
	var req mcp.CallToolRequest
	if raw != "" {
		req.Params.RawArguments = json.RawMessage(raw)
	}
	return req
}

func TestArgumentsDecode(t *testing.T) {
	args := MustArguments(argsTool())
	cases := []struct {
		name, raw, wantErr string
		wantLimit          int
	}{
		{name: "valid", raw: `{"id":"a","limit":50}`, wantLimit: 50},
		{name: "an integral number with a fraction is an integer", raw: `{"id":"a","limit":5.0}`, wantLimit: 5},
		{name: "above the maximum", raw: `{"id":"a","limit":51}`, wantErr: "limit: maximum: got 51, want 50"},
		{name: "below the minimum", raw: `{"id":"a","limit":0}`, wantErr: "limit: minimum: got 0, want 1"},
		{name: "a fraction", raw: `{"id":"a","limit":1.5}`, wantErr: "limit: got number, want integer"},
		{name: "wrong type", raw: `{"id":7}`, wantErr: "id: got number, want string"},
		{name: "missing required", raw: `{}`, wantErr: "missing property 'id'"},
		{name: "no arguments at all", raw: ``, wantErr: "missing property 'id'"},
		{name: "null arguments", raw: `null`, wantErr: "missing property 'id'"},
		{name: "not an object", raw: `["a"]`, wantErr: "got array, want object"},
		{name: "not JSON", raw: `{"id":`, wantErr: "not valid JSON"},
		// Issue 21: the last of two equal keys used to win.
		{name: "a key given twice", raw: `{"id":"a","id":"b"}`, wantErr: `key "id" is given twice`},
		{name: "a key given twice, once escaped", raw: `{"id":"a","\u0069d":"b"}`, wantErr: `key "id" is given twice`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var in argsInput
			err := args.Decode(call(c.raw), &in)
			if c.wantErr != "" {
				var ae *ArgumentError
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !errors.As(err, &ae) {
					t.Fatalf("err = %v, want an ArgumentError containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if in.Limit == nil || int(*in.Limit) != c.wantLimit {
				t.Fatalf("limit = %v, want %d", in.Limit, c.wantLimit)
			}
		})
	}
}

// Issue 22: an unknown key is named, with the arguments the tool takes.
func TestUnknownArgumentsAreNamed(t *testing.T) {
	args := MustArguments(mcp.NewTool("t",
		mcp.WithString("id", mcp.Required()),
		mcp.WithInteger("limit"),
		mcp.WithSchemaAdditionalProperties(false)))
	var in argsInput
	err := args.Decode(call(`{"id":"a","lmit":3,"dir":"x"}`), &in)
	want := `invalid arguments: unknown arguments "dir", "lmit" (this tool takes id, limit)`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}

func TestArgumentsFromDecodedMap(t *testing.T) {
	// In-process callers set Arguments, not RawArguments.
	var req mcp.CallToolRequest
	req.Params.Arguments = map[string]any{"id": "x", "limit": 3}
	var in argsInput
	if err := MustArguments(argsTool()).Decode(req, &in); err != nil || in.ID != "x" || int(*in.Limit) != 3 {
		t.Fatalf("in = %+v, err = %v", in, err)
	}
}

func TestArgumentsSizeLimits(t *testing.T) {
	args := MustArguments(argsTool())
	var in argsInput
	huge := `{"id":"` + strings.Repeat("x", MaxArgumentBytes) + `"}`
	var ae *ArgumentError
	if err := args.Decode(call(huge), &in); !errors.As(err, &ae) || !strings.Contains(ae.Msg, "over the limit of 8,388,608 bytes") {
		t.Errorf("oversized arguments: %v", err)
	}
	items := `{"id":"a","extra":{"tags":[` + strings.Repeat(`"t",`, MaxArgumentItems) + `"t"]}}`
	if err := args.Decode(call(items), &in); !errors.As(err, &ae) || ae.Msg != "extra.tags: 1,001 items, over the limit of 1,000" {
		t.Errorf("an array over the item limit: %v", err)
	}
	ok := `{"id":"a","extra":[` + strings.Repeat(`1,`, MaxArgumentItems-1) + `1]}`
	if err := args.Decode(call(ok), &in); err != nil {
		t.Errorf("an array at the item limit: %v", err)
	}
}
