package memstore

import (
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/core"
)

// TestFirstCharsCountsAsTruncateContent: firstChars cuts where ranging
// over the string does (whole runes, an invalid byte as one character),
// so a neighbour's cut content truncates as the whole content would.
func TestFirstCharsCountsAsTruncateContent(t *testing.T) {
	want := func(s string, n int) string {
		count := 0
		for i := range s {
			if count == n {
				return s[:i]
			}
			count++
		}
		return s
	}
	inputs := []string{
		"", "a", "héllo wörld", "日本語のテキスト", "a\xffb\xfe\xc3", "\xc3\xa9\xe2\x82", "emoji 😀 and \u2028",
		strings.Repeat("é", 600), strings.Repeat("x\xff", 400), strings.Repeat("plain ascii ", 100),
	}
	for _, s := range inputs {
		for _, n := range []int{0, 1, 2, 3, 7, core.ContextContentChars, core.ContextContentChars + 1, 10_000} {
			if got := string(firstChars([]byte(s), n)); got != want(s, n) {
				t.Errorf("firstChars(%q, %d) = %q, want %q", s, n, got, want(s, n))
			}
		}
		for _, limit := range []int{core.NeighborContentLimit, core.ListContentLimit} {
			if got, w := core.TruncateContent(string(contentHead([]byte(s))), limit), core.TruncateContent(s, limit); got != w {
				t.Errorf("TruncateContent of the head of %.40q at %d = %q, want %q", s, limit, got, w)
			}
		}
	}
}

// TestContentHeadAllocatesNothing: a neighbour's body record is cut where
// it lies; copying the whole content first was most of a depth=1 call's
// garbage.
func TestContentHeadAllocatesNothing(t *testing.T) {
	b := []byte(strings.Repeat("héllo wörld ", 1000))
	if n := testing.AllocsPerRun(100, func() { _ = contentHead(b) }); n != 0 {
		t.Errorf("contentHead allocates %v times, want 0", n)
	}
}
