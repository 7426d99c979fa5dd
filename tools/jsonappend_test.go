package tools

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// encodingJSON is StdJSON(v), failing the test on an error.
func encodingJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := StdJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var awkwardTexts = []string{
	"", "plain", `{"a":"b \"quoted\" \\ back"}`, "tab\tnew\nline\rcr\x00nul\x1fus\bbs\fff\x7fdel",
	"<b>&amp;</b>", "line\u2028sep\u2029para", "Grüße, 日本語, 🙂", "bad \xff\xfe bytes", "cut \xe2\x80",
	"\xe2\x80\xa8", "ends in e2 \xe2", "\xe2\x80\xaa not a separator", "surrogate \xed\xa0\x80 half",
	"eight-by\"e", "12345678\n", strings.Repeat("long plain text ", 40) + "\u2029" + strings.Repeat("x", 13),
}

// AppendJSONString writes what encoding/json writes, byte for byte.
func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := AppendJSONString(nil, s), encodingJSON(t, s); !bytes.Equal(got, want) {
			t.Errorf("%q:\n got %s\nwant %s", s, got, want)
		}
	}
	for _, s := range awkwardTexts {
		check(s)
	}
	// Every byte value at every position of strings of 1 to 17 bytes, so
	// that the eight-byte scan is checked for each lane, in whole words
	// and in the short word that ends a string.
	for c := range 256 {
		for n := 1; n <= 17; n++ {
			for pos := range n {
				b := []byte(strings.Repeat("a", n))
				b[pos] = byte(c)
				check(string(b))
			}
		}
	}
	// Every word made of a letter, '"', '\\' and '#' (the byte after '"',
	// where a borrow between bytes would show in a bit trick), 4^8 of
	// them, alone and after a prefix that puts the word across two: words
	// of printable ASCII take a path of their own.
	const printable = "a\"\\#"
	for n := range 1 << 16 {
		var w [8]byte
		for k := range w {
			w[k] = printable[n>>(2*k)&3]
		}
		check(string(w[:]) + "tail")
		check("pre" + string(w[:]) + "+tail-of-nine")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", " ", "\"", "\\", "\n", "\x01", "\x1f", "\xe2", "\x80", "\xa8", "\xa9", "é", "\u2028", "日", "\xff"}
	for range 5000 {
		var sb strings.Builder
		for range rng.IntN(40) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		check(sb.String())
	}
}

// The strings-array and int helpers agree with encoding/json, nil included.
func TestAppendJSONStringsAndInt(t *testing.T) {
	for _, ss := range [][]string{nil, {}, {"a"}, awkwardTexts} {
		if got, want := AppendJSONStrings(nil, ss), encodingJSON(t, ss); !bytes.Equal(got, want) {
			t.Errorf("%q:\n got %s\nwant %s", ss, got, want)
		}
	}
	for _, n := range []int{0, -1, 7, 1 << 40} {
		if got, want := AppendJSONInt(nil, n), encodingJSON(t, n); !bytes.Equal(got, want) {
			t.Errorf("%d: got %s, want %s", n, got, want)
		}
	}
}

type appended struct{ s string }

func (a appended) AppendJSON(dst []byte) []byte {
	return AppendJSONString(append(dst, `{"s":`...), a.s)
}

// EncodeJSON takes a JSONAppender's own encoding, and its pooled buffer
// does not leak one answer into the next.
func TestEncodeJSONUsesAppender(t *testing.T) {
	long := strings.Repeat("x", 5000)
	for _, s := range []string{long, "short", ""} {
		text, raw := EncodeJSON(appended{s})
		want := `{"s":"` + s + `"`
		if text != want || string(raw) != want {
			t.Fatalf("got %.40q / %.40q, want %.40q", text, raw, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range awkwardTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := AppendJSONString(nil, s), encodingJSON(t, s); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
}

// BenchmarkAppendJSONString escapes prose, and JSON as a tool's text form
// escapes it again (link lists: a quote every few bytes).
func BenchmarkAppendJSONString(b *testing.B) {
	prose := strings.Repeat("A note about graphs, with [[links]] and #tags.\n", 200)
	jsonText := strings.Repeat(`{"id":"notes/alpha/graph-core.md","title":"Graph Core"},`, 200)
	for _, in := range []struct{ name, text string }{{"prose", prose}, {"json", jsonText}} {
		buf := make([]byte, 0, 2*len(in.text))
		b.Run(in.name+"/ours", func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				buf = AppendJSONString(buf[:0], in.text)
			}
		})
		b.Run(in.name+"/encoding_json", func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				_ = encodingJSON(b, in.text)
			}
		})
	}
	// Link IDs and titles: many short strings, whose tails matter.
	short := []string{"notes/alpha/graph-core.md", "Graph Core", "inbox/2024-05-01 standup.md", "2024-05-01 standup", "a.md", "A"}
	buf := make([]byte, 0, 1024)
	b.Run("short/ours", func(b *testing.B) {
		b.SetBytes(int64(len(strings.Join(short, ""))))
		for b.Loop() {
			buf = buf[:0]
			for _, s := range short {
				buf = AppendJSONString(buf, s)
			}
		}
	})
}
