package kb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
)

// FieldType is the type a required frontmatter field must have.
type FieldType string

// Field types of spec 002.
const (
	TypeString  FieldType = "string"
	TypeNumber  FieldType = "number"
	TypeBoolean FieldType = "boolean"
	TypeDate    FieldType = "date"
	TypeArray   FieldType = "array"
)

var fieldTypes = []FieldType{TypeString, TypeNumber, TypeBoolean, TypeDate, TypeArray}

// Rules are the machine-checkable requirements of a folder constraint
// (spec 002 "Rules Schema"). A nil section checks nothing.
type Rules struct {
	Frontmatter *FrontmatterRules `json:"frontmatter,omitempty"`
	Filename    *FilenameRules    `json:"filename,omitempty"`
	Content     *ContentRules     `json:"content,omitempty"`
}

// FrontmatterRules lists the fields a note's frontmatter must have.
type FrontmatterRules struct {
	RequiredFields []FieldRule `json:"required_fields"`
}

// FieldRule is one required frontmatter field. Pattern (a Go regular
// expression, RE2 syntax) must match somewhere in the value's text;
// AllowedValues, when not empty, enumerates the values allowed. For an
// array both apply to every item.
type FieldRule struct {
	Name          string    `json:"name"`
	Type          FieldType `json:"type"`
	Pattern       string    `json:"pattern,omitempty"`
	AllowedValues []any     `json:"allowed_values,omitempty"` // string, float64 or bool
}

// FilenameRules constrain the note's file name, extension included.
type FilenameRules struct {
	Pattern string `json:"pattern"`
}

// ContentRules constrain the body (the note without its frontmatter).
// Lengths count characters (Unicode code points); RequiredSections are
// heading texts, matched against headings of any level, ignoring case.
type ContentRules struct {
	MinLength        *int     `json:"min_length,omitempty"`
	MaxLength        *int     `json:"max_length,omitempty"`
	RequiredSections []string `json:"required_sections,omitempty"`
}

// ParseRules decodes the rules argument of add_knowledge_base_folder_constraint
// (a JSON object). Unknown keys, wrong types, invalid regular expressions
// and contradictions are schema_validation_failed, with every problem
// named; nothing is stored for rules that fail.
func ParseRules(raw json.RawMessage) (Rules, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return Rules{}, newError(CodeSchemaValidationFailed, "rules are not a JSON object")
	}
	r, problems := rulesFromValue(fromJSON(v), true)
	if len(problems) == 0 {
		_, problems = compileRules(r)
	}
	if len(problems) > 0 {
		return Rules{}, rulesError(problems)
	}
	return r, nil
}

func rulesError(problems []string) *Error {
	return newError(CodeSchemaValidationFailed, "the rules are invalid: %s", strings.Join(problems, "; "))
}

// fromJSON turns json.Number into int64 or float64, as YAML decoding does.
func fromJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = fromJSON(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = fromJSON(x[k])
		}
	}
	return v
}

// rulesFromValue builds Rules from decoded JSON or YAML. strict (a
// client's rules) refuses unknown keys and a missing field type; rules
// read from a file ignore unknown keys and default a missing type to
// string, as the plugin does. Empty sections are dropped.
func rulesFromValue(v any, strict bool) (Rules, []string) {
	var r Rules
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if v == nil {
		return r, nil
	}
	top, ok := v.(map[string]any)
	if !ok {
		return r, []string{"rules must be an object"}
	}
	unknown := func(where string, m map[string]any, known ...string) {
		if !strict {
			return
		}
		for _, k := range sortedKeys(m) {
			if !slices.Contains(known, k) {
				add("%s: unknown key %q (known: %s)", where, k, strings.Join(known, ", "))
			}
		}
	}
	unknown("rules", top, "frontmatter", "filename", "content")

	if fm, ok := object(top, "frontmatter", "rules.frontmatter", add); ok {
		unknown("rules.frontmatter", fm, "required_fields")
		var fields []FieldRule
		if list, ok := fm["required_fields"]; ok && list != nil {
			items, isList := list.([]any)
			if !isList {
				add("rules.frontmatter.required_fields must be an array")
			}
			for i, it := range items {
				where := fmt.Sprintf("rules.frontmatter.required_fields[%d]", i)
				f, ok := fieldRule(where, it, strict, add, unknown)
				if ok {
					fields = append(fields, f)
				}
			}
		}
		if len(fields) > 0 {
			r.Frontmatter = &FrontmatterRules{RequiredFields: fields}
		}
	}
	if fn, ok := object(top, "filename", "rules.filename", add); ok {
		unknown("rules.filename", fn, "pattern")
		if p, ok := stringAt(fn, "pattern", "rules.filename.pattern", add); ok && p != "" {
			r.Filename = &FilenameRules{Pattern: p}
		}
	}
	if c, ok := object(top, "content", "rules.content", add); ok {
		unknown("rules.content", c, "min_length", "max_length", "required_sections")
		var cr ContentRules
		cr.MinLength = intAt(c, "min_length", "rules.content.min_length", add)
		cr.MaxLength = intAt(c, "max_length", "rules.content.max_length", add)
		if list, ok := c["required_sections"]; ok && list != nil {
			items, isList := list.([]any)
			if !isList {
				add("rules.content.required_sections must be an array of strings")
			}
			for i, it := range items {
				s, isString := it.(string)
				if !isString {
					add("rules.content.required_sections[%d] must be a string", i)
					continue
				}
				cr.RequiredSections = append(cr.RequiredSections, s)
			}
		}
		if cr.MinLength != nil || cr.MaxLength != nil || len(cr.RequiredSections) > 0 {
			r.Content = &cr
		}
	}
	return r, problems
}

func fieldRule(where string, v any, strict bool, add func(string, ...any), unknown func(string, map[string]any, ...string)) (FieldRule, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		add("%s must be an object with name and type", where)
		return FieldRule{}, false
	}
	unknown(where, m, "name", "type", "pattern", "allowed_values")
	var f FieldRule
	switch n := m["name"].(type) {
	case string:
		f.Name = n
	case nil:
		add("%s.name is missing", where)
		return f, false
	default:
		f.Name = fmt.Sprint(n) // a file may hold `- name: 2024`
		if strict {
			add("%s.name must be a string", where)
		}
	}
	switch t := m["type"].(type) {
	case string:
		f.Type = FieldType(t)
	case nil:
		if strict {
			add("%s.type is missing (one of string, number, boolean, date, array)", where)
		}
		f.Type = TypeString
	default:
		add("%s.type must be a string", where)
	}
	if p, ok := stringAt(m, "pattern", where+".pattern", add); ok {
		f.Pattern = p
	}
	if list, ok := m["allowed_values"]; ok && list != nil {
		items, isList := list.([]any)
		if !isList {
			add("%s.allowed_values must be an array", where)
		}
		for i, it := range items {
			switch x := it.(type) {
			case string, bool, float64:
				f.AllowedValues = append(f.AllowedValues, x)
			case int64:
				f.AllowedValues = append(f.AllowedValues, float64(x))
			case timestamp:
				f.AllowedValues = append(f.AllowedValues, string(x))
			default:
				add("%s.allowed_values[%d] must be a string, number or boolean", where, i)
			}
		}
	}
	return f, true
}

func object(m map[string]any, key, where string, add func(string, ...any)) (map[string]any, bool) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, false
	}
	o, ok := v.(map[string]any)
	if !ok {
		add("%s must be an object", where)
	}
	return o, ok
}

func stringAt(m map[string]any, key, where string, add func(string, ...any)) (string, bool) {
	v, ok := m[key]
	if !ok || v == nil {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		add("%s must be a string", where)
	}
	return s, ok
}

func intAt(m map[string]any, key, where string, add func(string, ...any)) *int {
	v, ok := m[key]
	if !ok || v == nil {
		return nil
	}
	var n int
	switch x := v.(type) {
	case int64:
		n = int(x)
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) {
			add("%s must be a whole number, got %v", where, x)
			return nil
		}
		n = int(x)
	default:
		add("%s must be a whole number", where)
		return nil
	}
	return &n
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// compiled is a checked Rules, ready to validate notes.
type compiled struct {
	rules    Rules
	fields   []compiledField
	filename *regexp.Regexp
	sections []string // required section texts, normalised (headingKey)
}

type compiledField struct {
	FieldRule
	re *regexp.Regexp
}

// compileRules checks r and compiles its regular expressions; problems
// name each rule that is wrong.
func compileRules(r Rules) (*compiled, []string) {
	c := &compiled{rules: r}
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if r.Frontmatter != nil {
		seen := map[string]bool{}
		for i, f := range r.Frontmatter.RequiredFields {
			where := fmt.Sprintf("rules.frontmatter.required_fields[%d]", i)
			if strings.TrimSpace(f.Name) == "" {
				add("%s.name is empty", where)
			} else if seen[f.Name] {
				add("%s.name %q is listed twice", where, f.Name)
			}
			seen[f.Name] = true
			if !slices.Contains(fieldTypes, f.Type) {
				add("%s.type %q is unknown (one of string, number, boolean, date, array)", where, f.Type)
			}
			cf := compiledField{FieldRule: f}
			if f.Pattern != "" {
				re, err := regexp.Compile(f.Pattern)
				if err != nil {
					add("%s.pattern %q is not a valid regular expression (RE2 syntax): %v", where, f.Pattern, regexpReason(err))
				}
				cf.re = re
			}
			for j, v := range f.AllowedValues {
				if !allowedFits(f.Type, v) {
					add("%s.allowed_values[%d] %v does not fit type %s", where, j, jsonText(v), f.Type)
				}
			}
			c.fields = append(c.fields, cf)
		}
	}
	if r.Filename != nil {
		re, err := regexp.Compile(r.Filename.Pattern)
		if err != nil {
			add("rules.filename.pattern %q is not a valid regular expression (RE2 syntax): %v", r.Filename.Pattern, regexpReason(err))
		}
		c.filename = re
	}
	if ct := r.Content; ct != nil {
		if ct.MinLength != nil && *ct.MinLength < 0 {
			add("rules.content.min_length must not be negative")
		}
		if ct.MaxLength != nil && *ct.MaxLength < 0 {
			add("rules.content.max_length must not be negative")
		}
		if ct.MinLength != nil && ct.MaxLength != nil && *ct.MinLength > *ct.MaxLength {
			add("rules.content.min_length %d is above max_length %d", *ct.MinLength, *ct.MaxLength)
		}
		for i, s := range ct.RequiredSections {
			k := headingKey(s)
			if k == "" {
				add("rules.content.required_sections[%d] is empty", i)
				continue
			}
			c.sections = append(c.sections, k)
		}
	}
	return c, problems
}

// regexpReason is the part of a regexp error after its "error parsing
// regexp: " prefix.
func regexpReason(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// allowedFits reports whether an allowed value can ever equal a value of
// type t.
func allowedFits(t FieldType, v any) bool {
	switch t {
	case TypeString:
		_, ok := v.(string)
		return ok
	case TypeNumber:
		_, ok := v.(float64)
		return ok
	case TypeBoolean:
		_, ok := v.(bool)
		return ok
	case TypeDate:
		s, ok := v.(string)
		return ok && isDate(s)
	}
	return true // array items may be any scalar
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
