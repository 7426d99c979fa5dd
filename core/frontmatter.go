package core

import (
	"bytes"
	"encoding/json"
)

// DecodeFrontmatter parses frontmatter a store kept as JSON, giving whole
// numbers back as int64 (YAML's ints stay ints up to 2^63) and others as
// float64, so that both stores answer a note's frontmatter with the types
// the vault parsed.
func DecodeFrontmatter(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return fixNumbers(m).(map[string]any), nil
}

func fixNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
		return x.String() // out of float64 range: keep the digits rather than lose them
	case map[string]any:
		for k, e := range x {
			x[k] = fixNumbers(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = fixNumbers(e)
		}
		return x
	default:
		return v
	}
}
