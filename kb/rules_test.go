package kb

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParseRulesRefusesInvalidRules(t *testing.T) {
	cases := []struct {
		name, rules, want string
	}{
		{"not an object", `[]`, "rules must be an object"},
		{"unknown top-level key", `{"frontmatter":{},"filenames":{}}`, `unknown key "filenames"`},
		{"unknown field key", `{"frontmatter":{"required_fields":[{"name":"a","type":"string","required":true}]}}`, `unknown key "required"`},
		{"unknown type", `{"frontmatter":{"required_fields":[{"name":"a","type":"text"}]}}`, `type "text" is unknown`},
		{"missing type", `{"frontmatter":{"required_fields":[{"name":"a"}]}}`, "type is missing"},
		{"missing name", `{"frontmatter":{"required_fields":[{"type":"string"}]}}`, "name is missing"},
		{"empty name", `{"frontmatter":{"required_fields":[{"name":" ","type":"string"}]}}`, "name is empty"},
		{"duplicate name", `{"frontmatter":{"required_fields":[{"name":"a","type":"string"},{"name":"a","type":"number"}]}}`, `"a" is listed twice`},
		{"bad field regex", `{"frontmatter":{"required_fields":[{"name":"a","type":"string","pattern":"(unclosed"}]}}`, "required_fields[0].pattern \"(unclosed\" is not a valid regular expression"},
		{"lookahead is not RE2", `{"filename":{"pattern":"^(?=x)"}}`, "filename.pattern"},
		{"bad filename regex", `{"filename":{"pattern":"[a-"}}`, "filename.pattern"},
		{"allowed value of the wrong type", `{"frontmatter":{"required_fields":[{"name":"n","type":"number","allowed_values":["one"]}]}}`, `"one" does not fit type number`},
		{"allowed date that is no date", `{"frontmatter":{"required_fields":[{"name":"d","type":"date","allowed_values":["soon"]}]}}`, "does not fit type date"},
		{"allowed object", `{"frontmatter":{"required_fields":[{"name":"a","type":"array","allowed_values":[{}]}]}}`, "must be a string, number or boolean"},
		{"negative length", `{"content":{"min_length":-1}}`, "min_length must not be negative"},
		{"fractional length", `{"content":{"max_length":2.5}}`, "whole number"},
		{"min above max", `{"content":{"min_length":10,"max_length":5}}`, "min_length 10 is above max_length 5"},
		{"empty section", `{"content":{"required_sections":["##"]}}`, "required_sections[0] is empty"},
		{"section not a string", `{"content":{"required_sections":[1]}}`, "must be a string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseRules(json.RawMessage(c.rules))
			if codeOf(err) != CodeSchemaValidationFailed || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want schema_validation_failed mentioning %q", err, c.want)
			}
		})
	}
}

func TestParseRulesKeepsValidRulesAndDropsEmptySections(t *testing.T) {
	r, err := ParseRules(json.RawMessage(`{
		"frontmatter":{"required_fields":[{"name":"status","type":"string","allowed_values":["a","b"]},{"name":"n","type":"number","allowed_values":[1,2.5]}]},
		"filename":{"pattern":""},
		"content":{"min_length":10.0,"required_sections":["## Summary"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Filename != nil {
		t.Error("an empty filename pattern checks nothing and is dropped")
	}
	if got := r.Frontmatter.RequiredFields[1].AllowedValues; !reflect.DeepEqual(got, []any{1.0, 2.5}) {
		t.Errorf("numbers: %#v", got)
	}
	if *r.Content.MinLength != 10 || r.Content.MaxLength != nil {
		t.Errorf("content: %+v", r.Content)
	}
	if r2, err := ParseRules(json.RawMessage(`{"frontmatter":{}}`)); err != nil || r2.Frontmatter != nil {
		t.Errorf("empty frontmatter rules: %+v, %v", r2, err)
	}
}
