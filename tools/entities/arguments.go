package entities

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

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
	raw, err := tools.RawArguments(req)
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
