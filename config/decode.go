package config

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// decode converts raw (a value from viper: YAML-decoded from the file, a
// string from the environment or a flag, or the default) into the key's
// field of c. base is the folder relative paths are resolved against. It
// returns the type problems it found; the field keeps its zero value then.
func (k *key) decode(raw any, c *Config, base string) []Problem {
	if raw == nil { // a YAML null: the key is present but empty
		raw = k.defaultValue()
	}
	switch p := k.field(c).(type) {
	case *string:
		s, ok := scalarString(raw)
		if !ok {
			return k.problem("%s is not a string", k.show(raw))
		}
		if k.path {
			abs, err := expandPath(s, base)
			if err != nil {
				return k.problem("%q: %v", s, err)
			}
			s = abs
		}
		*p = s
	case *Secret:
		s, ok := scalarString(raw)
		if !ok {
			return k.problem("%s is not a string", k.show(raw))
		}
		*p = Secret(s)
	case *bool:
		b, ok := toBool(raw)
		if !ok {
			return k.problem("%s is not a boolean, want true or false", k.show(raw))
		}
		*p = b
	case *int:
		n, ok := toInt(raw)
		if !ok {
			return k.problem("%s is not an integer, want a whole number of at least %d", k.show(raw), k.min)
		}
		*p = n
	case *time.Duration:
		d, ok := toDuration(raw)
		if !ok {
			return k.problem("%s is not a duration, want a number with a unit such as 30s, 2m or 1h30m", k.show(raw))
		}
		*p = d
	case *[]string:
		list, problems := k.toList(raw)
		if k.path {
			for i, s := range list {
				abs, err := expandPath(s, base)
				if err != nil {
					problems = append(problems, k.problem("%q: %v", s, err)...)
					continue
				}
				list[i] = abs
			}
		}
		*p = list
		return problems
	case *map[string]string:
		m, problems := k.toMap(raw)
		*p = m
		return problems
	case *[]Token:
		tokens, problems := k.toTokens(raw)
		*p = tokens
		return problems
	case *[]ProjectConfig:
		projects, problems := k.toProjects(raw, base)
		*p = projects
		return problems
	default:
		panic(fmt.Sprintf("config: key %s: field of unsupported type %T", k.name, p))
	}
	return nil
}

// problem returns one problem about the key.
func (k *key) problem(format string, args ...any) []Problem {
	return []Problem{{Key: k.name, Message: fmt.Sprintf(format, args...)}}
}

// show renders a raw value for a message: strings quoted, lists and
// mappings named rather than dumped, secrets redacted.
func (k *key) show(raw any) string {
	if k.isSecret() {
		return Redacted
	}
	return showValue(raw)
}

func showValue(raw any) string {
	switch v := raw.(type) {
	case string:
		return strconv.Quote(v)
	case nil:
		return "null"
	case []any, []string:
		return "a list"
	case map[string]any, map[any]any, map[string]string:
		return "a mapping"
	default:
		return fmt.Sprint(v)
	}
}

// scalarString accepts a string or any YAML scalar (a password of digits is
// decoded by YAML as a number) and rejects lists and mappings.
func scalarString(raw any) (string, bool) {
	switch v := raw.(type) {
	case string:
		return v, true
	case bool, int, int64, uint64, float64, time.Duration:
		return fmt.Sprint(v), true
	}
	return "", false
}

func toBool(raw any) (bool, bool) {
	switch v := raw.(type) {
	case bool:
		return v, true
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		return b, err == nil
	}
	return false, false
}

func toInt(raw any) (int, bool) {
	switch v := raw.(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case uint64:
		return int(v), v <= uint64(int(^uint(0)>>1))
	case float64:
		return int(v), v == float64(int(v))
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		return n, err == nil
	}
	return 0, false
}

// toDuration accepts a duration or a string with a unit. A bare number is
// refused: "30" could mean seconds or nanoseconds.
func toDuration(raw any) (time.Duration, bool) {
	switch v := raw.(type) {
	case time.Duration:
		return v, true
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(v))
		return d, err == nil
	}
	return 0, false
}

// splitList splits a comma list, trimming items and dropping empty ones (a
// trailing comma in an environment variable is harmless).
func splitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// toList accepts a YAML list of scalars or a comma-separated string.
func (k *key) toList(raw any) ([]string, []Problem) {
	switch v := raw.(type) {
	case string:
		return nonNil(splitList(v)), nil
	case []string:
		return nonNil(slices.Clone(v)), nil
	case []any:
		out := make([]string, 0, len(v))
		var problems []Problem
		for i, item := range v {
			s, ok := scalarString(item)
			if !ok {
				problems = append(problems, Problem{Key: fmt.Sprintf("%s[%d]", k.name, i), Message: fmt.Sprintf("%s is not a string", k.show(item))})
				continue
			}
			out = append(out, s)
		}
		return out, problems
	}
	return nil, k.problem("%s is not a list, want a YAML list or a comma-separated string", k.show(raw))
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// toMap accepts a YAML mapping of scalars or "old=new,old2=new2".
func (k *key) toMap(raw any) (map[string]string, []Problem) {
	switch v := raw.(type) {
	case map[string]string:
		return maps.Clone(v), nil
	case map[string]any:
		out := make(map[string]string, len(v))
		var problems []Problem
		for _, name := range slices.Sorted(maps.Keys(v)) {
			s, ok := scalarString(v[name])
			if !ok {
				problems = append(problems, Problem{Key: k.name + "." + name, Message: fmt.Sprintf("%s is not a string", k.show(v[name]))})
				continue
			}
			out[name] = s
		}
		return out, problems
	case string:
		out := map[string]string{}
		var problems []Problem
		for _, pair := range splitList(v) {
			from, to, ok := strings.Cut(pair, "=")
			if !ok {
				problems = append(problems, Problem{Key: k.name, Message: fmt.Sprintf("%q is not old=new, want pairs such as search=memory_search separated by commas", pair)})
				continue
			}
			out[strings.TrimSpace(from)] = strings.TrimSpace(to)
		}
		return out, problems
	}
	return nil, k.problem("%s is not a mapping, want old: new pairs such as {search: memory_search}", k.show(raw))
}

// readOnlyPrefix marks a token written as a plain string as read-only.
const readOnlyPrefix = "ro:"

// parseTokenString reads one token written as a plain string.
func parseTokenString(s string) Token {
	if rest, ok := strings.CutPrefix(s, readOnlyPrefix); ok {
		return Token{Value: Secret(rest), ReadOnly: true}
	}
	return Token{Value: Secret(s)}
}

// toTokens accepts a comma list (environment), or a YAML list whose items
// are strings or {token, read_only} mappings. Token values never appear in
// the problems it reports.
func (k *key) toTokens(raw any) ([]Token, []Problem) {
	switch v := raw.(type) {
	case []Token:
		return slices.Clone(v), nil
	case string:
		var out []Token
		for _, s := range splitList(v) {
			out = append(out, parseTokenString(s))
		}
		return out, nil
	case []string:
		var out []Token
		for _, s := range v {
			out = append(out, parseTokenString(s))
		}
		return out, nil
	case []any:
		var out []Token
		var problems []Problem
		for i, item := range v {
			at := fmt.Sprintf("%s[%d]", k.name, i)
			t, ps := tokenItem(at, item)
			problems = append(problems, ps...)
			if len(ps) == 0 {
				out = append(out, t)
			}
		}
		return out, problems
	}
	return nil, k.problem("%s is not a list, want a list of tokens or a comma-separated string", showKind(raw))
}

// tokenItem decodes one element of a YAML token list.
func tokenItem(at string, item any) (Token, []Problem) {
	bad := func(format string, args ...any) (Token, []Problem) {
		return Token{}, []Problem{{Key: at, Message: fmt.Sprintf(format, args...)}}
	}
	if s, ok := scalarString(item); ok {
		return parseTokenString(s), nil
	}
	m, ok := item.(map[string]any)
	if !ok {
		return bad("%s is not a token, want a string or {token: ..., read_only: true}", showKind(item))
	}
	var t Token
	for _, name := range slices.Sorted(maps.Keys(m)) {
		switch strings.ToLower(name) {
		case "token":
			s, ok := scalarString(m[name])
			if !ok {
				return bad("token is %s, want a string", showKind(m[name]))
			}
			t.Value = Secret(s)
		case "read_only":
			b, ok := toBool(m[name])
			if !ok {
				return bad("read_only is %s, want true or false", showValue(m[name]))
			}
			t.ReadOnly = b
		default:
			return bad("unknown field %q, want token and read_only", name)
		}
	}
	if _, ok := m["token"]; !ok {
		return bad("has no token field, want {token: ..., read_only: true}")
	}
	return t, nil
}

// showKind names a value's kind without showing it (for secrets).
func showKind(raw any) string {
	switch raw.(type) {
	case []any, []string:
		return "a list"
	case map[string]any, map[any]any:
		return "a mapping"
	case nil:
		return "null"
	}
	return Redacted
}
