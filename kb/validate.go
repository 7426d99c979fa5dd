package kb

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Issue kinds of machine validation. The first seven are the plugin's;
// invalid_frontmatter reports frontmatter YAML that does not parse.
const (
	IssueMissingField       = "missing_required_field"
	IssueInvalidType        = "invalid_field_type"
	IssueInvalidValue       = "invalid_value"
	IssuePatternMismatch    = "pattern_mismatch"
	IssueContentTooShort    = "content_too_short"
	IssueContentTooLong     = "content_too_long"
	IssueMissingSection     = "missing_section"
	IssueInvalidFrontmatter = "invalid_frontmatter"
)

// Issue is one way a note fails its folder constraint: the field checked
// ("frontmatter.status", "frontmatter.tags[1]", "filename", "content",
// "content.sections"), the kind of error, what the rule expected and what
// the note has, and a sentence saying the same.
type Issue struct {
	Field    string `json:"field"`
	Error    string `json:"error"`
	Expected any    `json:"expected"`
	Actual   any    `json:"actual"`
	Pattern  string `json:"pattern,omitempty"` // for pattern_mismatch, as in the spec's example
	Message  string `json:"message"`
}

// check validates a note (file name and full content) against c.
func (c *compiled) check(fileName, content string) []Issue {
	doc := splitDocument(content)
	var issues []Issue
	if len(c.fields) > 0 {
		issues = append(issues, c.checkFrontmatter(doc)...)
	}
	if c.filename != nil && !c.filename.MatchString(fileName) {
		p := c.rules.Filename.Pattern
		issues = append(issues, Issue{Field: "filename", Error: IssuePatternMismatch, Expected: p, Actual: fileName, Pattern: p,
			Message: fmt.Sprintf("file name %q does not match the pattern %s", fileName, p)})
	}
	if ct := c.rules.Content; ct != nil {
		issues = append(issues, c.checkContent(ct, doc.body)...)
	}
	return issues
}

func (c *compiled) checkFrontmatter(doc document) []Issue {
	fm := map[string]any{}
	if doc.hasFrontmatter {
		v, err := decodeYAML(doc.frontmatter)
		switch m, ok := v.(map[string]any); {
		case err != nil:
			return []Issue{{Field: "frontmatter", Error: IssueInvalidFrontmatter, Expected: "valid YAML frontmatter", Actual: yamlReason(err),
				Message: "the frontmatter is not valid YAML: " + yamlReason(err) + " (quote values holding backslashes or colons, e.g. pattern: '^\\d+$')"}}
		case ok:
			fm = m
		case v != nil:
			return []Issue{{Field: "frontmatter", Error: IssueInvalidFrontmatter, Expected: "a mapping of properties", Actual: kindOf(v),
				Message: "the frontmatter must be a mapping of properties (key: value lines)"}}
		}
	}
	var issues []Issue
	for _, f := range c.fields {
		issues = append(issues, checkField(f, fm)...)
	}
	return issues
}

func yamlReason(err error) string { return strings.TrimPrefix(err.Error(), "yaml: ") }

func checkField(f compiledField, fm map[string]any) []Issue {
	field := "frontmatter." + f.Name
	v, present := fm[f.Name]
	if !present || v == nil {
		return []Issue{{Field: field, Error: IssueMissingField, Expected: string(f.Type), Actual: nil,
			Message: fmt.Sprintf("required field %q (%s) is missing", f.Name, f.Type)}}
	}
	if !hasType(v, f.Type) {
		return []Issue{{Field: field, Error: IssueInvalidType, Expected: string(f.Type), Actual: kindOf(v),
			Message: fmt.Sprintf("field %q must be of type %s, got %s", f.Name, f.Type, kindOf(v))}}
	}
	if items, ok := v.([]any); ok {
		var issues []Issue
		for i, it := range items {
			issues = append(issues, checkValue(f, fmt.Sprintf("%s[%d]", field, i), it)...)
		}
		return issues
	}
	return checkValue(f, field, v)
}

// checkValue applies a field's pattern and allowed values to one value
// (the field's, or one item of an array field).
func checkValue(f compiledField, field string, v any) []Issue {
	var issues []Issue
	if f.re != nil {
		text, ok := scalarText(v)
		if !ok || !f.re.MatchString(text) {
			issues = append(issues, Issue{Field: field, Error: IssuePatternMismatch, Expected: f.Pattern, Actual: plain(v), Pattern: f.Pattern,
				Message: fmt.Sprintf("%s %s does not match the pattern %s", field, jsonText(plain(v)), f.Pattern)})
		}
	}
	if len(f.AllowedValues) > 0 && !isAllowed(v, f.AllowedValues) {
		issues = append(issues, Issue{Field: field, Error: IssueInvalidValue, Expected: f.AllowedValues, Actual: plain(v),
			Message: fmt.Sprintf("%s is %s; allowed: %s", field, jsonText(plain(v)), jsonText(f.AllowedValues))})
	}
	return issues
}

func (c *compiled) checkContent(ct *ContentRules, body string) []Issue {
	var issues []Issue
	n := utf8.RuneCountInString(strings.ReplaceAll(body, "\r\n", "\n"))
	if ct.MinLength != nil && n < *ct.MinLength {
		issues = append(issues, Issue{Field: "content", Error: IssueContentTooShort, Expected: *ct.MinLength, Actual: n,
			Message: fmt.Sprintf("the body (without frontmatter) has %d characters; at least %d are required", n, *ct.MinLength)})
	}
	if ct.MaxLength != nil && n > *ct.MaxLength {
		issues = append(issues, Issue{Field: "content", Error: IssueContentTooLong, Expected: *ct.MaxLength, Actual: n,
			Message: fmt.Sprintf("the body (without frontmatter) has %d characters; at most %d are allowed", n, *ct.MaxLength)})
	}
	if len(c.sections) == 0 {
		return issues
	}
	found := headings(body)
	have := make(map[string]bool, len(found))
	for _, h := range found {
		have[headingKey(h)] = true
	}
	for i, key := range c.sections {
		if !have[key] {
			want := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(ct.RequiredSections[i]), "#"))
			issues = append(issues, Issue{Field: "content.sections", Error: IssueMissingSection, Expected: want, Actual: nonNil(found),
				Message: fmt.Sprintf("no heading %q (any level, any letter case) was found", want)})
		}
	}
	return issues
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// hasType reports whether a decoded frontmatter value is of type t. A
// date is a YAML timestamp or a string that is a date (isDate); a string
// is a string or a timestamp as written (the plugin reads unquoted dates
// as strings).
func hasType(v any, t FieldType) bool {
	switch x := v.(type) {
	case string:
		return t == TypeString || t == TypeDate && isDate(x)
	case timestamp:
		return t == TypeString || t == TypeDate
	case int64, float64:
		return t == TypeNumber
	case bool:
		return t == TypeBoolean
	case []any:
		return t == TypeArray
	}
	return false
}

// kindOf names the type of a decoded frontmatter value for messages.
func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case timestamp:
		return "date"
	case int64, float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// dateLayouts are the forms a date field accepts.
var dateLayouts = []string{
	"2006-01-02", time.RFC3339, time.RFC3339Nano,
	"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04",
}

// isDate reports whether s is a calendar date, alone (2025-12-10) or with
// a time (RFC 3339, or "2025-12-10 14:30[:00]", "2025-12-10T14:30[:00]").
func isDate(s string) bool {
	for _, l := range dateLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return true
		}
	}
	return false
}

// scalarText is the text a pattern is matched against: a string or date
// as written, a number or boolean as YAML writes it. Lists and objects
// have none.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case timestamp:
		return string(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// plain turns a decoded value into one that encodes as JSON naturally.
func plain(v any) any {
	switch x := v.(type) {
	case timestamp:
		return string(x)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = plain(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = plain(e)
		}
		return out
	}
	return v
}

// isAllowed compares a value with the allowed ones: numbers by value,
// booleans as booleans, strings and dates by their text.
func isAllowed(v any, allowed []any) bool {
	for _, a := range allowed {
		switch x := a.(type) {
		case float64:
			switch y := v.(type) {
			case int64:
				if float64(y) == x {
					return true
				}
			case float64:
				if y == x {
					return true
				}
			}
		case bool:
			if y, ok := v.(bool); ok && y == x {
				return true
			}
		case string:
			switch y := v.(type) {
			case string:
				if y == x {
					return true
				}
			case timestamp:
				if string(y) == x {
					return true
				}
			}
		}
	}
	return false
}
