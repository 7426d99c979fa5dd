package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// ArgumentError is a tool call whose arguments do not satisfy the tool's
// input schema. Msg is written for the model: it names each offending
// argument and what was expected ("limit: maximum: got 51, want 50").
type ArgumentError struct{ Msg string }

func (e *ArgumentError) Error() string { return e.Msg }

// Size limits on a tool call's arguments (docs/LIMITS.md), checked before
// the schema so that an oversized call is refused with a clear message
// instead of being validated and written. The transports cap a whole
// message before it gets here: HTTP bodies at the same size
// (server.DefaultMaxBodyBytes), stdio lines at twice it
// (server.MaxStdioMessageBytes), so any call these limits accept fits.
const (
	// MaxArgumentBytes caps the JSON of one call's arguments: 8 MiB holds
	// any note a client should send at once.
	MaxArgumentBytes = 8 << 20
	// MaxArgumentItems caps any one array argument (tags, ids): far above
	// what a model sends, far below what would make a write or a query
	// slow.
	MaxArgumentItems = 1000
)

// Arguments checks a tool call's arguments against the tool's published
// input schema and decodes them into the tool's input struct: the Decoder
// Handle uses unless a toolset gives its own (entities, whose errors carry
// each violation's place). Toolsets use it instead of the SDK's validation
// so that a failure comes back in their spec's error shape, and so the
// published schema is the one checked.
type Arguments struct {
	tool   string
	schema *jsonschema.Schema
	known  []string // the top-level argument names, sorted, for messages
}

// NewArguments compiles tool's input schema.
func NewArguments(tool mcp.Tool) (*Arguments, error) {
	raw, err := InputSchemaJSON(tool)
	if err != nil {
		return nil, err
	}
	schema, err := CompileSchema(tool.Name, raw)
	if err != nil {
		return nil, err
	}
	var top struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(raw, &top) // it compiled, so it decodes
	known := slices.Sorted(maps.Keys(top.Properties))
	return &Arguments{tool: tool.Name, schema: schema, known: known}, nil
}

// MustArguments is NewArguments for the static specs of a toolset: a
// schema that does not compile is a programming error, caught by the
// inventory test (TestInventoryToolsAreWellFormed).
func MustArguments(tool mcp.Tool) *Arguments {
	a, err := NewArguments(tool)
	if err != nil {
		panic(err)
	}
	return a
}

// InputSchemaJSON returns the input schema tool publishes in tools/list.
func InputSchemaJSON(tool mcp.Tool) ([]byte, error) {
	if len(tool.RawInputSchema) > 0 {
		return tool.RawInputSchema, nil
	}
	raw, err := json.Marshal(tool.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tools: marshal input schema of %s: %w", tool.Name, err)
	}
	return raw, nil
}

// CompileSchema compiles a JSON Schema document (draft 2020-12 unless it
// says otherwise).
func CompileSchema(name string, raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("tools: decode schema of %s: %w", name, err)
	}
	url := "mem:///vaultgraph/tools/" + name + ".json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("tools: add schema of %s: %w", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tools: compile schema of %s: %w", name, err)
	}
	return s, nil
}

// Decode validates req's arguments and unmarshals them into dst (a pointer
// to the tool's input struct). Missing or null arguments count as {}.
// Failures are *ArgumentError.
func (a *Arguments) Decode(req mcp.CallToolRequest, dst any) error {
	raw, err := RawArguments(req)
	if err != nil {
		return &ArgumentError{Msg: "arguments are not valid JSON"}
	}
	if len(raw) > MaxArgumentBytes {
		return &ArgumentError{Msg: printer.Sprintf("arguments are %d bytes, over the limit of %d bytes (8 MiB): send less at once", len(raw), MaxArgumentBytes)}
	}
	value, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return &ArgumentError{Msg: "arguments are not valid JSON"}
	}
	if msg := tooManyItems("", value); msg != "" {
		return &ArgumentError{Msg: msg}
	}
	if key, dup := DuplicateKey(raw); dup {
		return &ArgumentError{Msg: fmt.Sprintf("invalid arguments: key %q is given twice; give each argument once", key)}
	}
	if err := a.schema.Validate(value); err != nil {
		return &ArgumentError{Msg: validationMessage(err, a.known)}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(dst); err != nil {
		return &ArgumentError{Msg: "invalid arguments: " + decodeMessage(err)}
	}
	return nil
}

// tooManyItems describes the first array in v (a decoded JSON value)
// longer than MaxArgumentItems, "" when there is none.
func tooManyItems(at string, v any) string {
	switch v := v.(type) {
	case []any:
		if len(v) > MaxArgumentItems {
			return printer.Sprintf("%s: %d items, over the limit of %d", strings.TrimPrefix(at, "."), len(v), MaxArgumentItems)
		}
		for i, x := range v {
			if msg := tooManyItems(fmt.Sprintf("%s[%d]", at, i), x); msg != "" {
				return msg
			}
		}
	case map[string]any:
		for k, x := range v {
			if msg := tooManyItems(at+"."+k, x); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// RawArguments returns the JSON of req's arguments as the client sent
// them (re-encoded when the SDK decoded them); missing or null arguments
// are {}.
func RawArguments(req mcp.CallToolRequest) ([]byte, error) {
	var raw []byte
	switch v := req.GetRawArguments().(type) {
	case json.RawMessage:
		raw = v
	case nil:
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return []byte("{}"), nil
	}
	return raw, nil
}

var printer = message.NewPrinter(language.English)

// validationMessage flattens a schema validation error into one line per
// violated constraint, "<argument path>: <what was wrong>", sorted so the
// text is stable. An unknown top-level argument is named with the ones
// the tool takes (known), so a misspelling can be corrected at once.
func validationMessage(err error, known []string) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return "invalid arguments"
	}
	var parts []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			msg := e.ErrorKind.LocalizedString(printer)
			if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
				msg = unknownMessage(ap.Properties, len(e.InstanceLocation) == 0, known)
			}
			if len(e.InstanceLocation) > 0 {
				msg = strings.Join(e.InstanceLocation, "/") + ": " + msg
			}
			parts = append(parts, msg)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(parts)
	return "invalid arguments: " + strings.Join(parts, "; ")
}

// unknownMessage names unknown argument keys; at the top level it lists
// the arguments the tool takes.
func unknownMessage(props []string, top bool, known []string) string {
	quoted := make([]string, len(props))
	for i, p := range props {
		quoted[i] = strconv.Quote(p)
	}
	slices.Sort(quoted)
	noun := "unknown argument"
	if len(props) > 1 {
		noun += "s"
	}
	msg := noun + " " + strings.Join(quoted, ", ")
	if top && len(known) > 0 {
		msg += " (this tool takes " + strings.Join(known, ", ") + ")"
	}
	return msg
}

// decodeMessage names the argument a Go decoding error is about without
// Go type names.
func decodeMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return te.Field + ": got " + te.Value + ", which this argument does not accept"
	}
	return "malformed arguments"
}

// Int is an integer argument. JSON Schema's "integer" admits integral
// numbers written with a fraction or exponent (5.0, 5e0), which
// encoding/json refuses for an int; Int takes them as the integer they are.
type Int int

// UnmarshalJSON decodes any integral JSON number that fits an int.
func (i *Int) UnmarshalJSON(b []byte) error {
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	if v, err := n.Int64(); err == nil {
		*i = Int(v)
		return nil
	}
	f, err := n.Float64()
	if err != nil || f != float64(int64(f)) {
		return &json.UnmarshalTypeError{Value: "number " + n.String(), Type: reflectInt}
	}
	*i = Int(int64(f))
	return nil
}

var reflectInt = reflect.TypeFor[int]()

// Or returns the argument p points at, or def when it was not given: the
// specs' defaults are applied by the handlers, not by the schema.
func Or[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// IntOr is Or for integer arguments.
func IntOr(p *Int, def int) int {
	if p == nil {
		return def
	}
	return int(*p)
}
