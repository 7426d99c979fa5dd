package tools_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/tools"
)

// specWith is a tool whose input schema has the given properties.
func specWith(name string, props ...string) mcp.Tool {
	opts := []mcp.ToolOption{mcp.WithDescription("test")}
	for _, p := range props {
		opts = append(opts, mcp.WithString(p))
	}
	return mcp.NewTool(name, opts...)
}

type inner struct {
	C string `json:"c"`
	D string // promoted under its Go name
}

type Exported struct {
	E int `json:"e,omitempty"`
}

type matching struct {
	A       string `json:"a"`
	B       *int   `json:"b,omitempty"`
	Skipped string `json:"-"`
	hidden  string // unexported: not a JSON field
	inner
	*Exported
}

func TestJSONFieldsFollowEncodingJSON(t *testing.T) {
	got := tools.JSONFields(reflect.TypeFor[matching]())
	want := []string{"D", "a", "b", "c", "e"}
	if !slices.Equal(got, want) {
		t.Fatalf("JSONFields = %v, want %v", got, want)
	}
	// encoding/json agrees: every name it writes is one JSONFields names.
	raw, err := json.Marshal(matching{B: new(int), hidden: "h", Exported: &Exported{E: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var written map[string]any
	if err := json.Unmarshal(raw, &written); err != nil {
		t.Fatal(err)
	}
	for k := range written {
		if !slices.Contains(got, k) {
			t.Errorf("encoding/json writes %q, which JSONFields leaves out", k)
		}
	}
}

type shallow struct{ X string }
type deepTagged struct {
	X string `json:"x"`
}
type twoAtOneDepth struct {
	shallow
	other
}
type other struct{ X string }
type shallowWins struct {
	X string `json:"x"`
	deepTagged
}
type taggedWins struct {
	shallow
	deepTagged2
}
type deepTagged2 struct {
	X string `json:"X"`
}

func TestJSONFieldsPromotionRules(t *testing.T) {
	for _, c := range []struct {
		name string
		typ  reflect.Type
		want []string
	}{
		{"two untagged at one depth cancel out", reflect.TypeFor[twoAtOneDepth](), nil},
		{"the shallower field wins", reflect.TypeFor[shallowWins](), []string{"x"}},
		{"a tagged field wins at one depth", reflect.TypeFor[taggedWins](), []string{"X"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := tools.JSONFields(c.typ); !slices.Equal(got, c.want) {
				t.Errorf("JSONFields = %v, want %v", got, c.want)
			}
		})
	}
}

func TestCheckInputAcceptsExactlyThePublishedProperties(t *testing.T) {
	spec := specWith("t", "D", "a", "b", "c", "e")
	if err := tools.CheckInput(spec, reflect.TypeFor[matching]()); err != nil {
		t.Fatal(err)
	}
	if err := tools.CheckInput(spec, reflect.TypeFor[*matching]()); err != nil {
		t.Fatalf("a pointer to the struct: %v", err)
	}
	if err := tools.CheckInput(specWith("none"), reflect.TypeFor[struct{}]()); err != nil {
		t.Fatalf("no arguments: %v", err)
	}
}

type drifted struct {
	Query string `json:"query"`
	Limit int    `json:"limt,omitempty"` // misspelt: the schema's limit is never read
}

func TestCheckInputNamesTheToolAndEveryDifferingField(t *testing.T) {
	err := tools.CheckInput(specWith("find_things", "query", "limit", "mode"), reflect.TypeFor[drifted]())
	if err == nil {
		t.Fatal("drift not found")
	}
	msg := err.Error()
	for _, want := range []string{"find_things", "fields the schema lacks: limt", "properties the struct lacks: limit, mode"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not say %q", msg, want)
		}
	}
}

type op struct {
	Kind  string `json:"kind"`
	Extra string `json:"extra"`
}

type nested struct {
	Ops []op `json:"ops"`
}

func TestCheckInputGoesIntoArraysOfObjects(t *testing.T) {
	spec := mcp.NewTool("batch", mcp.WithDescription("test"),
		mcp.WithArray("ops", mcp.Items(map[string]any{
			"type":       "object",
			"properties": map[string]any{"kind": map[string]any{"type": "string"}},
		})))
	err := tools.CheckInput(spec, reflect.TypeFor[nested]())
	if err == nil || !strings.Contains(err.Error(), "ops[].extra") {
		t.Fatalf("CheckInput = %v, want the nested field ops[].extra named", err)
	}
}

func TestCheckInputRefusesWhatItCannotCheck(t *testing.T) {
	spec := specWith("t", "a")
	for _, typ := range []reflect.Type{reflect.TypeFor[map[string]any](), reflect.TypeFor[json.RawMessage]()} {
		if err := tools.CheckInput(spec, typ); err == nil {
			t.Errorf("%s: accepted", typ)
		}
	}
}

// Handle runs the check as the toolsets are built, at start: a drift
// stops the server from starting, with the tool and the fields named.
func TestHandleFailsFastOnADriftingInputStruct(t *testing.T) {
	h := tools.Handling{
		Fail: func(context.Context, string, error) *mcp.CallToolResult { return nil },
		OK:   func(context.Context, any) *mcp.CallToolResult { return nil },
	}
	defer func() {
		r := recover()
		err, _ := r.(error)
		if err == nil || !strings.Contains(err.Error(), "find_things") || !strings.Contains(err.Error(), "limt") {
			t.Fatalf("Handle did not fail with the tool and the field named: %v", r)
		}
	}()
	tools.Handle(h, specWith("find_things", "query", "limit"), func(context.Context, drifted) (any, error) { return nil, nil })
}

// Issue 48.3: every tool of every toolset is built by tools.Handle, which
// checked its input struct against its published schema; the check is
// run again here so a drift is reported tool by tool.
func TestEveryToolInputStructMatchesItsPublishedSchema(t *testing.T) {
	var all []tools.Tool
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("building the toolsets: %v", r)
			}
		}()
		all = inventory(t)
	}()
	for _, tool := range all {
		t.Run(tool.Tool.Name, func(t *testing.T) {
			inputs := tools.HandledInputs(tool.Tool.Name)
			if len(inputs) == 0 {
				t.Fatal("the handler was not built by tools.Handle, so its input was never checked against its schema")
			}
			var errs []string
			for _, in := range inputs {
				err := tools.CheckInput(tool.Tool, in)
				if err == nil {
					return
				}
				errs = append(errs, err.Error())
			}
			t.Error(strings.Join(errs, "\n"))
		})
	}
}
