package jsonrpc

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		msg    string
		kind   Kind
		id     string
		method string
		code   int // of the error, 0: none
	}{
		{msg: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, kind: Request, id: "1", method: "tools/list"},
		{msg: `{"jsonrpc":"2.0","id":"a","method":"ping"}` + "\n", kind: Request, id: `"a"`, method: "ping"},
		{msg: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, kind: Notification, method: "notifications/initialized"},
		{msg: `{"jsonrpc":"2.0","id":3,"result":{}}`, kind: Response, id: "3"},
		{msg: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, kind: Response, id: "null"},
		{msg: `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, id: "null", method: "tools/list", code: CodeInvalidRequest},
		{msg: `{"jsonrpc":"2.0","id": null ,"method":"notifications/initialized"}`, id: "null", method: "notifications/initialized", code: CodeInvalidRequest},
		{msg: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, code: CodeInvalidRequest},
		{msg: `[]`, code: CodeInvalidRequest},
		{msg: `[{"jsonrpc":"2.0"`, code: CodeParseError},
		{msg: `this is not json`, code: CodeParseError},
		{msg: `{"jsonrpc":"2.0","id":1,"method":"ping"`, code: CodeParseError},
		{msg: `42`, code: CodeInvalidRequest},
		{msg: `"x"`, code: CodeInvalidRequest},
		{msg: `null`, code: CodeInvalidRequest},
		{msg: `{"jsonrpc":"2.0","id":1,"method":5}`, id: "1", code: CodeInvalidRequest},
		// Ids of other types are the caller's to refuse (ValidID).
		{msg: `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, kind: Request, id: `{"a":1}`, method: "ping"},
	}
	for _, c := range cases {
		h, err := Parse([]byte(c.msg))
		code := 0
		if err != nil {
			code = err.Code
			if h.Kind != Invalid {
				t.Errorf("%s: kind %v with an error", c.msg, h.Kind)
			}
		}
		if code != c.code || h.Kind != c.kind || string(h.ID) != c.id || h.Method != c.method {
			t.Errorf("%s: got %v id=%s method=%q code=%d; want %v id=%s method=%q code=%d",
				c.msg, h.Kind, h.ID, h.Method, code, c.kind, c.id, c.method, c.code)
		}
	}
}

func TestIDs(t *testing.T) {
	for id, want := range map[string]bool{``: true, `"a"`: true, `7`: true, `-1.5`: true, `1e3`: true, `null`: true, ` 7 `: true,
		`{"a":1}`: false, `[1]`: false, `true`: false, `false`: false} {
		if got := ValidID(json.RawMessage(id)); got != want {
			t.Errorf("ValidID(%s) = %v", id, got)
		}
	}
	for id, want := range map[string]bool{``: false, `null`: false, ` null`: false, `0`: true, `"null"`: true} {
		if got := HasID(json.RawMessage(id)); got != want {
			t.Errorf("HasID(%s) = %v", id, got)
		}
	}
	same := [][2]string{{`1`, `1.0`}, {`"a"`, `"a"`}, {`1`, ` 1`}}
	differ := [][2]string{{`1`, `"1"`}, {`1`, `2`}, {`null`, `"null"`}, {`1`, ``}}
	for _, p := range same {
		if !SameID(json.RawMessage(p[0]), json.RawMessage(p[1])) {
			t.Errorf("SameID(%s, %s) = false", p[0], p[1])
		}
	}
	for _, p := range differ {
		if SameID(json.RawMessage(p[0]), json.RawMessage(p[1])) {
			t.Errorf("SameID(%s, %s) = true", p[0], p[1])
		}
	}
}

func TestErrorLine(t *testing.T) {
	cases := map[string]string{
		`7`:     `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"m"}}` + "\n",
		``:      `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m"}}` + "\n",
		`"s"`:   `{"jsonrpc":"2.0","id":"s","error":{"code":-32600,"message":"m"}}` + "\n",
		`{bad`:  `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m"}}` + "\n",
		`null`:  `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m"}}` + "\n",
		` "t" `: `{"jsonrpc":"2.0","id":"t","error":{"code":-32600,"message":"m"}}` + "\n",
	}
	for id, want := range cases {
		if got := string(ErrorLine(json.RawMessage(id), CodeInvalidRequest, "m")); got != want {
			t.Errorf("ErrorLine(%s) = %s", id, got)
		}
	}
}

type skipped struct {
	id   string
	size int
}

func readAll(t *testing.T, in string, limit int) (lines []string, skips []skipped) {
	t.Helper()
	r := NewReader(strings.NewReader(in), limit, func(id json.RawMessage, size int) {
		skips = append(skips, skipped{string(id), size})
	})
	for {
		line, err := r.Next()
		if len(line) > 0 {
			lines = append(lines, string(line))
		}
		if err == io.EOF {
			return lines, skips
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// A line over the limit is skipped (not kept whole) and reported with the
// id read from its beginning; the lines around it pass as they are.
func TestReaderSkipsOversizedLines(t *testing.T) {
	huge := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"` + strings.Repeat("a", 300_000) + `"}}`
	noID := `{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("b", 300_000) + `"}`
	late := `{"jsonrpc":"2.0","params":"` + strings.Repeat("e", 100_000) + `","id":9}`
	in := "first\n" + huge + "\n" + `{"id":"s","p":"` + strings.Repeat("c", 200) + "\"}\n" + noID + "\n" + late + "\nlast without newline"
	lines, skips := readAll(t, in, 150)
	if strings.Join(lines, "|") != "first\n|last without newline" {
		t.Errorf("passed through %.200q", lines)
	}
	want := []skipped{{"7", len(huge) + 1}, {`"s"`, 218}, {"null", len(noID) + 1}, {"null", len(late) + 1}}
	if len(skips) != len(want) {
		t.Fatalf("skipped %v", skips)
	}
	for i := range want {
		if skips[i] != want[i] {
			t.Errorf("skip %d: %v, want %v", i, skips[i], want[i])
		}
	}
	// Lines at the limit pass whole; an oversized last line without a
	// newline is skipped too.
	ok := strings.Repeat("d", 149) + "\n"
	lines, skips = readAll(t, ok+ok+strings.Repeat("f", 151), 150)
	if len(lines) != 2 || lines[0] != ok || lines[1] != ok || len(skips) != 1 || skips[0].size != 151 {
		t.Errorf("lines at the limit: %d lines, skips %v", len(lines), skips)
	}
}

// Classify answers as Parse for what a caller decoded itself.
func TestClassifyAgreesWithParse(t *testing.T) {
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","method":"n"}`, `{"id":2,"result":{}}`,
		`{"id":null,"method":"ping"}`, ` null`, "\n[1]", `{}`,
	} {
		var h struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal([]byte(msg), &h)
		want, werr := Parse([]byte(msg))
		got, gerr := Classify([]byte(msg), h.ID, h.Method)
		if got.Kind != want.Kind || string(got.ID) != string(want.ID) || got.Method != want.Method || (gerr == nil) != (werr == nil) || (gerr != nil && *gerr != *werr) {
			t.Errorf("%s: Classify %v %v, Parse %v %v", msg, got, gerr, want, werr)
		}
	}
}
