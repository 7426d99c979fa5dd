package config

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Setting is one key's effective value in a printable form with every
// secret redacted: what `vaultgraph status` shows.
type Setting struct {
	Key string // dotted name, e.g. "neo4j.uri"
	// Value is a string, bool, int, []string, map[string]string, or for
	// http.tokens a []TokenView. Secrets are Redacted ("" when not set).
	Value  any
	Origin string // see Config.Origin
	Env    string // the environment variable
	Flag   string // the flag name without dashes; "" if none
	Help   string
}

// TokenView is a redacted HTTP token.
type TokenView struct {
	Token    string `yaml:"token" json:"token"`
	ReadOnly bool   `yaml:"read_only" json:"read_only"`
}

// Settings returns every key's value in table order, secrets redacted.
func (c *Config) Settings() []Setting {
	out := make([]Setting, 0, len(keys))
	for i := range keys {
		k := &keys[i]
		out = append(out, Setting{
			Key:    k.name,
			Value:  displayValue(k.field(c)),
			Origin: c.Origin(k.name),
			Env:    k.env(),
			Flag:   k.flag,
			Help:   k.help,
		})
	}
	return out
}

// displayValue turns a field pointer into a redacted, printable value.
func displayValue(field any) any {
	switch p := field.(type) {
	case *string:
		return *p
	case *Secret:
		return p.String()
	case *bool:
		return *p
	case *int:
		return *p
	case *time.Duration:
		return p.String()
	case *[]string:
		return nonNil(slices.Clone(*p))
	case *map[string]string:
		if *p == nil {
			return map[string]string{}
		}
		return maps.Clone(*p)
	case *[]ProjectConfig:
		return projectViews(*p)
	case *[]Token:
		views := make([]TokenView, len(*p))
		for i, t := range *p {
			views[i] = TokenView{Token: t.Value.String(), ReadOnly: t.ReadOnly}
		}
		return views
	}
	panic(fmt.Sprintf("config: no display for %T", field))
}

// FormatValue renders a Setting's Value on one line: lists and mappings in
// the comma form the environment uses, read-only tokens with "ro:".
func FormatValue(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []string:
		return strings.Join(v, ",")
	case map[string]string:
		pairs := make([]string, 0, len(v))
		for _, from := range slices.Sorted(maps.Keys(v)) {
			pairs = append(pairs, from+"="+v[from])
		}
		return strings.Join(pairs, ",")
	case []TokenView:
		items := make([]string, len(v))
		for i, t := range v {
			items[i] = t.Token
			if t.ReadOnly {
				items[i] = readOnlyPrefix + t.Token
			}
		}
		return strings.Join(items, ",")
	}
	return fmt.Sprint(v)
}

// String renders the configuration as key=value pairs in table order, with
// every secret redacted.
func (c *Config) String() string {
	var b strings.Builder
	for i, s := range c.Settings() {
		if i > 0 {
			b.WriteByte(' ')
		}
		v := FormatValue(s.Value)
		if v == "" || strings.ContainsAny(v, " \t\n\"=") {
			v = strconv.Quote(v)
		}
		b.WriteString(s.Key + "=" + v)
	}
	return b.String()
}

// LogValue renders the configuration for slog as nested groups (neo4j,
// http, ...) with every secret redacted.
func (c *Config) LogValue() slog.Value {
	type group struct {
		name  string
		attrs []slog.Attr
	}
	var order []*group // top-level entries; a leaf is a group without a name
	byName := map[string]*group{}
	for _, s := range c.Settings() {
		v := s.Value
		if tokens, ok := v.([]TokenView); ok {
			v = FormatValue(tokens)
		}
		parent, leaf, nested := strings.Cut(s.Key, ".")
		if !nested {
			order = append(order, &group{attrs: []slog.Attr{slog.Any(s.Key, v)}})
			continue
		}
		g, ok := byName[parent]
		if !ok {
			g = &group{name: parent}
			byName[parent] = g
			order = append(order, g)
		}
		g.attrs = append(g.attrs, slog.Any(leaf, v))
	}
	attrs := []slog.Attr{slog.String("file", c.File)}
	for _, g := range order {
		if g.name == "" {
			attrs = append(attrs, g.attrs...)
			continue
		}
		attrs = append(attrs, slog.Attr{Key: g.name, Value: slog.GroupValue(g.attrs...)})
	}
	return slog.GroupValue(attrs...)
}
