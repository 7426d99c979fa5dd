package entities

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// schemas holds spec 003's input and output schemas, copied verbatim:
// <tool>.input.json and <tool>.output.json.
//
//go:embed schemas/*.json
var schemas embed.FS

// Schema returns the spec's schema of tool, kind "input" or "output".
func Schema(tool, kind string) json.RawMessage {
	raw, err := schemas.ReadFile("schemas/" + tool + "." + kind + ".json")
	if err != nil {
		panic(fmt.Sprintf("entities: no %s schema for %s", kind, tool)) // embedded: a test covers every tool
	}
	return raw
}

// annotations: every tool of the toolset only reads the project's graph.
func annotations(title string) mcp.ToolOption {
	return mcp.WithToolAnnotation(mcp.ToolAnnotation{
		Title:           title,
		ReadOnlyHint:    mcp.ToBoolPtr(true),
		DestructiveHint: mcp.ToBoolPtr(false),
		IdempotentHint:  mcp.ToBoolPtr(true),
		OpenWorldHint:   mcp.ToBoolPtr(false),
	})
}

// paramHelp describes each parameter for the model; the published input
// schema is the spec's with these descriptions added.
var paramHelp = map[string]string{
	"projectId":         "Project UUID, from list_projects",
	"query":             "Text matched case-insensitively as a substring of title, slug and summary (1-256 characters)",
	"entityTypes":       "Only entities of these types (at most 4, no repeats); omitted: every type",
	"limit":             "Most entities returned, 1-50 (default 20); totalCount counts every match",
	"entityId":          "Entity UUID, from search_entities or get_entity_graph",
	"depth":             "Relationship steps from the entity, 1 or 2 (default 1)",
	"relationshipTypes": "Only follow and return these relationship types (no repeats); omitted or empty: every type",
}

// inputSchema is the spec's input schema of tool with paramHelp's
// descriptions on its properties.
func inputSchema(tool string) json.RawMessage {
	var schema map[string]any
	if err := json.Unmarshal(Schema(tool, "input"), &schema); err != nil {
		panic(fmt.Sprintf("entities: input schema of %s: %v", tool, err))
	}
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		if prop, ok := p.(map[string]any); ok && paramHelp[name] != "" {
			prop["description"] = paramHelp[name]
		}
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("entities: input schema of %s: %v", tool, err))
	}
	return raw
}

// newSpec builds a tool with the spec's schemas.
func newSpec(name, title, description string) mcp.Tool {
	tool := mcp.NewToolWithRawSchema(name, description, inputSchema(name))
	for _, opt := range []mcp.ToolOption{mcp.WithRawOutputSchema(tools.PortableSchema(Schema(name, "output"))), annotations(title)} {
		opt(&tool)
	}
	return tool
}

// handling is how the toolset answers (tools.Handle): the call gets the
// toolset's timeout, the arguments are checked by the toolset's own
// decoder (arguments, whose errors say where each violation is), run's
// answer is sent as JSON text and structuredContent, and any failure
// becomes the spec's envelope.
func (d Deps) handling() tools.Handling {
	return tools.Handling{
		Begin: func(ctx context.Context) (context.Context, func()) {
			return context.WithTimeout(ctx, d.timeout())
		},
		Arguments: func(spec mcp.Tool) tools.Decoder { return mustArguments(spec) },
		Fail: func(ctx context.Context, tool string, err error) *mcp.CallToolResult {
			return errorResult(d.toErrorBody(ctx, tool, err))
		},
		OK: func(_ context.Context, out any) *mcp.CallToolResult {
			text, raw := mustJSON(out)
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, StructuredContent: raw}
		},
	}
}

// errorResult is the isError tool result carrying body (tools.ErrorResult).
func errorResult(body ErrorBody) *mcp.CallToolResult {
	return tools.ErrorResult(ErrorResponse{Error: body})
}

// mustJSON is tools.EncodeJSON.
func mustJSON(v any) (string, json.RawMessage) { return tools.EncodeJSON(v) }

// arguments checks calls against a tool's input schema. Unlike
// tools.Arguments it keeps where each violation is, for the envelope's
// details.
type arguments struct{ schema *jsonschema.Schema }

func mustArguments(spec mcp.Tool) *arguments {
	raw, err := tools.InputSchemaJSON(spec)
	if err == nil {
		var s *jsonschema.Schema
		if s, err = tools.CompileSchema(spec.Name, raw); err == nil {
			return &arguments{schema: s}
		}
	}
	panic(err) // the spec's schemas are static; the toolsnap test compiles each
}

var printer = message.NewPrinter(language.English)

// Decode validates the call's arguments and decodes them into dst;
// failures are VALIDATION_ERROR with details {field, errors}. Missing or
// null arguments count as {}. Formats (uuid) are checked by the handlers,
// which answer a malformed projectId with PROJECT_NOT_FOUND.
func (a *arguments) Decode(req mcp.CallToolRequest, dst any) error {
	raw, err := rawArguments(req)
	if err != nil {
		return fail(CodeValidationError, "arguments are not valid JSON", nil)
	}
	value, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fail(CodeValidationError, "arguments are not valid JSON", nil)
	}
	if err := a.schema.Validate(value); err != nil {
		return validationFailure(err)
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fail(CodeValidationError, "arguments do not match the tool's input schema", nil)
	}
	return nil
}

func rawArguments(req mcp.CallToolRequest) ([]byte, error) {
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

// validationFailure turns a schema violation into VALIDATION_ERROR:
// message "invalid arguments: <field>: <what>; ...", details.field the
// first offending argument ("" for the arguments object itself) and
// details.errors every violation, sorted so the answer is stable.
func validationFailure(err error) *Error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fail(CodeValidationError, "invalid arguments", nil)
	}
	type violation struct{ field, msg string }
	var found []violation
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		field := strings.Join(e.InstanceLocation, "/")
		if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok && field == "" && len(ap.Properties) > 0 {
			field = ap.Properties[0]
			found = append(found, violation{field, "unknown parameter(s) " + strings.Join(quoteAll(ap.Properties), ", ")})
			return
		}
		if req, ok := e.ErrorKind.(*kind.Required); ok && len(req.Missing) > 0 {
			// The violation is the object's, but the parameter to fix is
			// the missing one: details.field names it.
			for _, m := range req.Missing {
				found = append(found, violation{joinField(field, m), "missing required parameter " + strconv.Quote(m)})
			}
			return
		}
		found = append(found, violation{field, e.ErrorKind.LocalizedString(printer)})
	}
	walk(ve)
	slices.SortFunc(found, func(a, b violation) int { return strings.Compare(a.field+"\x00"+a.msg, b.field+"\x00"+b.msg) })
	msgs := make([]string, len(found))
	for i, v := range found {
		msgs[i] = v.msg
		if v.field != "" {
			msgs[i] = v.field + ": " + v.msg
		}
	}
	details := map[string]any{"errors": msgs}
	if len(found) > 0 {
		details["field"] = found[0].field
	}
	return fail(CodeValidationError, "invalid arguments: "+strings.Join(msgs, "; "), details)
}

// joinField is the path of a property of the object at parent.
func joinField(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "/" + name
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

// project resolves a projectId argument to a served project. A value that
// is not a UUID is PROJECT_NOT_FOUND too: spec 003 defines the code for an
// "invalid or inaccessible projectId".
func (d Deps) project(id string) (core.Project, error) {
	canon, ok := core.ParseUUID(id)
	if !ok {
		return core.Project{}, fail(CodeProjectNotFound, "projectId is not a UUID; list_projects gives the ids of the projects served here", map[string]any{"field": "projectId"})
	}
	p, ok := d.Projects.Lookup(canon)
	if !ok {
		return core.Project{}, fail(CodeProjectNotFound, "no project with this projectId is served here; list_projects gives the ids", map[string]any{"field": "projectId", "projectId": id})
	}
	return p, nil
}

// entityID checks an entityId argument: not a UUID is VALIDATION_ERROR.
func entityID(id string) (string, error) {
	canon, ok := core.ParseUUID(id)
	if !ok {
		return "", fail(CodeValidationError, "invalid arguments: entityId: is not a UUID", map[string]any{"field": "entityId", "errors": []string{"entityId: is not a UUID"}})
	}
	return canon, nil
}

// entityNotFound is the answer for an entity the project does not hold,
// whether it does not exist or belongs to another project.
func entityNotFound(id string) *Error {
	return fail(CodeEntityNotFound, "no entity with this entityId in this project", map[string]any{"field": "entityId", "entityId": id})
}

// timestamp writes t as RFC 3339 in UTC.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// optTimestamp is timestamp, or null for nil.
func optTimestamp(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := timestamp(*t)
	return &s
}

// optString is s, or null for "".
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
