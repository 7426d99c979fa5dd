package tools

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// CheckInput reports whether the JSON fields of in, the input struct a
// tool's handler decodes its arguments into, are exactly the properties
// of the input schema the tool publishes: the schema is the contract a
// client reads, the struct what the handler acts on, and a field on one
// side only is an argument refused, or accepted and dropped, without a
// word. Fields are named as encoding/json names them: the json tag's name
// (omitempty and other options aside), the Go name without one, "-"
// leaves a field out, and the fields of an embedded struct count as the
// outer struct's unless a shallower field has their name. The error names
// the tool and every field that differs.
func CheckInput(spec mcp.Tool, in reflect.Type) error {
	raw, err := InputSchemaJSON(spec)
	if err != nil {
		return err
	}
	var schema objectSchema
	if err := json.Unmarshal(raw, &schema); err != nil {
		return fmt.Errorf("tools: input schema of %s: %w", spec.Name, err)
	}
	t := deref(in)
	if t.Kind() != reflect.Struct {
		return fmt.Errorf("tools: input of %s is %s, not a struct: its fields cannot be checked against the published schema", spec.Name, in)
	}
	if decodesItself(t) {
		return fmt.Errorf("tools: input %s of %s decodes itself (UnmarshalJSON): its fields cannot be checked against the published schema", t, spec.Name)
	}
	var diffs []string
	compareFields("", t, schema.Properties, &diffs)
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("tools: tool %s: input struct %s and published input schema differ: %s", spec.Name, t, strings.Join(diffs, "; "))
}

// objectSchema is the part of a JSON Schema CheckInput reads.
type objectSchema struct {
	Properties map[string]json.RawMessage `json:"properties"`
	Items      json.RawMessage            `json:"items"`
}

// compareFields appends to diffs what differs between the JSON fields of
// the struct t and props, the properties of the object schema at path
// ("" at the top, "ops[]." inside the items of an array argument), then
// goes into every field that is itself an object (or an array of
// objects) whose schema lists its properties.
func compareFields(path string, t reflect.Type, props map[string]json.RawMessage, diffs *[]string) {
	fields := jsonFields(t)
	var onlyStruct, onlySchema []string
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if _, ok := props[name]; !ok {
			onlyStruct = append(onlyStruct, path+name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if _, ok := fields[name]; !ok {
			onlySchema = append(onlySchema, path+name)
		}
	}
	if len(onlyStruct) > 0 {
		*diffs = append(*diffs, fmt.Sprintf("fields the schema lacks: %s", strings.Join(onlyStruct, ", ")))
	}
	if len(onlySchema) > 0 {
		*diffs = append(*diffs, fmt.Sprintf("properties the struct lacks: %s", strings.Join(onlySchema, ", ")))
	}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		raw, ok := props[name]
		if !ok {
			continue
		}
		ft, at := deref(fields[name]), path+name
		var sub objectSchema
		if json.Unmarshal(raw, &sub) != nil {
			continue
		}
		if (ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array) && len(sub.Items) > 0 {
			var items objectSchema
			if json.Unmarshal(sub.Items, &items) != nil {
				continue
			}
			ft, at, sub = deref(ft.Elem()), at+"[]", items
		}
		if ft.Kind() == reflect.Struct && !decodesItself(ft) && sub.Properties != nil {
			compareFields(at+".", ft, sub.Properties, diffs)
		}
	}
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// decodesItself reports whether encoding/json hands a *t to its own
// UnmarshalJSON rather than filling its fields.
func decodesItself(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]())
}

// JSONFields returns the names encoding/json reads and writes for the
// struct type t, sorted: exported fields by their json tag's name or Go
// name, "-" left out, embedded structs' fields promoted under Go's rules
// (the shallowest wins; at one depth a tagged field wins over untagged
// ones; two left at one depth cancel out).
func JSONFields(t reflect.Type) []string {
	return slices.Sorted(maps.Keys(jsonFields(deref(t))))
}

// jsonFields maps each name JSONFields returns to its field's type.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	type found struct {
		depth  int
		tagged bool
		typ    reflect.Type
	}
	byName := map[string][]found{}
	var walk func(t reflect.Type, depth int, seen map[reflect.Type]bool)
	walk = func(t reflect.Type, depth int, seen map[reflect.Type]bool) {
		if seen[t] {
			return
		}
		seen[t] = true
		defer delete(seen, t)
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if !f.IsExported() && (ft.Kind() != reflect.Struct || f.Type.Kind() == reflect.Pointer) {
					continue // encoding/json ignores these
				}
				if name == "" && ft.Kind() == reflect.Struct {
					walk(ft, depth+1, seen)
					continue
				}
			} else if !f.IsExported() {
				continue
			}
			tagged := name != ""
			if !tagged {
				name = f.Name
			}
			byName[name] = append(byName[name], found{depth: depth, tagged: tagged, typ: f.Type})
		}
	}
	walk(t, 0, map[reflect.Type]bool{})
	names := map[string]reflect.Type{}
	for name, fs := range byName {
		top := slices.MinFunc(fs, func(a, b found) int { return a.depth - b.depth }).depth
		var atTop, taggedAtTop int
		var only, onlyTagged reflect.Type
		for _, f := range fs {
			if f.depth == top {
				atTop++
				only = f.typ
				if f.tagged {
					taggedAtTop++
					onlyTagged = f.typ
				}
			}
		}
		switch {
		case atTop == 1:
			names[name] = only
		case taggedAtTop == 1:
			names[name] = onlyTagged
		}
	}
	return names
}
