package graph

import (
	"reflect"
	"testing"
)

// TestWrittenNoteIsNodeResponsesNoteFields: the type create_node's and
// update_node's output schemas are made from has NodeResponse's fields of a
// note, same JSON names and Go types, and NodeResponse has no field besides
// them but those a written note never carries (type, mime, unresolved): a
// field added to NodeResponse fails here until it is decided whether the
// writes' schemas list it. UpdateResponse and WrittenUpdate agree the same
// way on what they add.
func TestWrittenNoteIsNodeResponsesNoteFields(t *testing.T) {
	fields := func(typ reflect.Type) map[string]reflect.Type {
		out := map[string]reflect.Type{}
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Anonymous {
				continue
			}
			name := f.Tag.Get("json")
			for j := range len(name) {
				if name[j] == ',' {
					name = name[:j]
					break
				}
			}
			out[name] = f.Type
		}
		return out
	}
	written, node := fields(reflect.TypeFor[WrittenNote]()), fields(reflect.TypeFor[NodeResponse]())
	for name, typ := range written {
		if node[name] != typ {
			t.Errorf("WrittenNote.%s is %v, NodeResponse's %v", name, typ, node[name])
		}
	}
	for name := range node {
		if _, ok := written[name]; !ok && name != "type" && name != "mime" && name != "unresolved" {
			t.Errorf("NodeResponse has %q, which WrittenNote (the writes' output schema) leaves out", name)
		}
	}
	if !reflect.DeepEqual(fields(reflect.TypeFor[WrittenUpdate]()), fields(reflect.TypeFor[UpdateResponse]())) {
		t.Error("WrittenUpdate adds to WrittenNote what UpdateResponse adds to NodeResponse")
	}
}
