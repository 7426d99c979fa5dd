package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

func TestDuplicateKey(t *testing.T) {
	cases := []struct {
		name, in, path string
	}{
		{"no duplicate", `{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}`, ""},
		{"top level", `{"method":"tools/call","method":"x"}`, "method"},
		{"in params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_node","name":"delete_node"}}`, "params.name"},
		{"in arguments", `{"params":{"name":"t","arguments":{"id":"a","id":"b"}}}`, "params.arguments.id"},
		{"in an array", `{"params":{"items":[{"a":1},{"b":1,"b":2}]}}`, "params.items[1].b"},
		{"escaped spelling", `{"params":{"name":"a","n\u0061me":"b"}}`, "params.name"},
		{"escaped quote in a key", `{"a\"b":1,"a\"b":2}`, `a"b`},
		{"string values that look like keys", `{"a":"\"a\":1","b":"{\"c\":1,\"c\":2}"}`, ""},
		{"backslash before a closing quote", `{"a\\":1,"a":2}`, ""},
		{"empty keys", `{"":1,"":2}`, ""},
		{"many keys, late duplicate", manyKeys(100, "k50"), "k50"},
		{"many keys, no duplicate", manyKeys(100, ""), ""},
		{"top-level array", `[{"a":1},{"a":1,"a":2}]`, "[1].a"},
		{"scalars", `"x"`, ""},
		{"whitespace", " { \"a\" : 1 ,\n\t\"a\" : 2 } ", "a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, found := DuplicateKey([]byte(c.in))
			want := c.path != "" || c.name == "empty keys"
			if found != want || path != c.path {
				t.Fatalf("DuplicateKey(%s) = %q, %v; want %q, %v", c.in, path, found, c.path, want)
			}
		})
	}
}

// What is not JSON ends the scan without a panic; the decoder that reads
// the message next refuses it. Nesting deeper than encoding/json accepts
// is not followed.
func TestDuplicateKeyGivesUpOnWhatIsNotJSON(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a" 1, "a": 2}`, `[1 2]`, `{"a":1}}`, `{"a":"x`, `{"a":tru`,
		strings.Repeat("[", 20000) + `{"a":1,"a":2}` + strings.Repeat("]", 20000)} {
		if path, found := DuplicateKey([]byte(in)); found {
			t.Errorf("DuplicateKey(%.40q) = %q; want nothing", in, path)
		}
	}
}

func manyKeys(n int, dup string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(strconv.Quote("k" + strconv.Itoa(i)))
		b.WriteString(":1")
	}
	if dup != "" {
		b.WriteString("," + strconv.Quote(dup) + ":2")
	}
	b.WriteString("}")
	return b.String()
}

// referenceDuplicate is the definition DuplicateKey implements, through
// encoding/json's tokenizer: whether any object holds a key twice.
func referenceDuplicate(data []byte) (dup, valid bool) {
	if !json.Valid(data) {
		return false, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object bool
		keys   map[string]bool
		expect bool // the next token of an object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return false, true
		}
		if err != nil {
			return false, false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.expect {
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					return true, true
				}
				top.keys[k] = true
				top.expect = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			if top != nil && top.object {
				top.expect = true
			}
			stack = append(stack, &frame{object: true, keys: map[string]bool{}, expect: true})
			continue
		case json.Delim('['):
			if top != nil && top.object {
				top.expect = true
			}
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].expect = true
			}
			continue
		}
		if top != nil && top.object {
			top.expect = true
		}
	}
}

func FuzzDuplicateKey(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":[1,{"c":1,"c":2}]}}`, `{"\u0061":1,"a":2}`, `{"a\\":1,"a":1}`, `[]`, `{"a":"b","c":"d"}`, manyKeys(40, "k3")} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path, found := DuplicateKey(data)
		want, valid := referenceDuplicate(data)
		if !valid {
			return // anything goes: the decoder refuses it next
		}
		if found != want {
			t.Fatalf("DuplicateKey(%q) = %q, %v; the reference says %v", data, path, found, want)
		}
	})
}

func BenchmarkDuplicateKey(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"get_node","arguments":{"id":"concepts/bm25.md","depth":1},"_meta":{"progressToken":"p"}}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if _, dup := DuplicateKey(msg); dup {
			b.Fatal("dup")
		}
	}
}
