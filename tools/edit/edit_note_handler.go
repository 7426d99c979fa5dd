package edit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/noteedit"
	"github.com/vaultgraph/vaultgraph/tools"
)

// EditNoteHandler answers edit_note with EditNoteResponse.
func EditNoteHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), EditNoteSpec(), func(ctx context.Context, in EditNoteInput) (any, error) {
		op, err := opOf(in)
		if err != nil {
			return nil, err
		}
		res, err := d.Editor.Edit(ctx, noteedit.Request{ID: in.ID, Op: op, ExpectedVersion: deref(in.ExpectedVersion)})
		if err != nil {
			return nil, err
		}
		return &EditNoteResponse{ID: res.ID, Path: res.Path, Title: res.Title, Changed: res.Changed, Version: res.Version, Diff: res.Diff}, nil
	})
}

// The arguments each operation takes: required ones, then optional ones.
// An argument an operation does not take is refused rather than ignored:
// a model that sends content with replace_text meant something else.
var opArgs = map[noteedit.Operation][2][]string{
	noteedit.Append:            {{"content"}, {"heading"}},
	noteedit.Prepend:           {{"content"}, {"heading"}},
	noteedit.ReplaceSection:    {{"heading", "content"}, nil},
	noteedit.InsertAfter:       {{"heading", "content"}, nil},
	noteedit.ReplaceText:       {{"old_text", "new_text"}, {"expected_count"}},
	noteedit.SetFrontmatter:    {{"key", "value"}, nil},
	noteedit.RemoveFrontmatter: {{"key"}, nil},
}

// opOf checks which arguments in gives for its operation and builds the
// edit.
func opOf(in EditNoteInput) (noteedit.Op, error) {
	operation := noteedit.Operation(in.Operation)
	want, ok := opArgs[operation]
	if !ok { // the schema's enum refuses it first
		return noteedit.Op{}, core.InvalidArgument("operation %q is not one of %s", in.Operation, strings.Join(operations(), ", "))
	}
	given := map[string]bool{
		"heading": in.Heading != nil, "content": in.Content != nil, "old_text": in.OldText != nil,
		"new_text": in.NewText != nil, "expected_count": in.ExpectedCount != nil, "key": in.Key != nil,
		"value": in.Value != nil,
	}
	for _, name := range want[0] {
		if !given[name] {
			return noteedit.Op{}, core.InvalidArgument("%s needs %s (%s)", operation, name, argList(want))
		}
	}
	for _, name := range []string{"heading", "content", "old_text", "new_text", "expected_count", "key", "value"} {
		if given[name] && !contains(want[0], name) && !contains(want[1], name) {
			return noteedit.Op{}, core.InvalidArgument("%s does not take %s; it takes %s", operation, name, argList(want))
		}
	}
	op := noteedit.Op{Operation: operation, Heading: deref(in.Heading), Content: deref(in.Content),
		OldText: deref(in.OldText), NewText: deref(in.NewText), Key: deref(in.Key)}
	if in.ExpectedCount != nil {
		op.ExpectedCount = int(*in.ExpectedCount)
	}
	if in.Value != nil {
		dec := json.NewDecoder(bytes.NewReader(in.Value))
		dec.UseNumber() // integers stay integers in the YAML
		if err := dec.Decode(&op.Value); err != nil {
			return noteedit.Op{}, core.InvalidArgument("value is not a JSON value")
		}
	}
	return op, nil
}

func argList(want [2][]string) string {
	s := strings.Join(want[0], " and ")
	if len(want[1]) > 0 {
		s += fmt.Sprintf(", optionally %s", strings.Join(want[1], ", "))
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
