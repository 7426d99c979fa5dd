package memstore

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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

// TestBodyHeadFromPrefix: decodeBodyHead, given only a body record's
// first bodyHeadBytes (what a neighbour's view reads of it), finds the
// content head decodeBody finds in the whole record, for contents of
// every length around the cut, multi-byte and invalid bytes included; and
// a whole record whose content is cut short is an error.
func TestBodyHeadFromPrefix(t *testing.T) {
	pieces := []string{"a", "é", "日", "😀", "\xff", "\xc3", " ", "\n"}
	rng := rand.New(rand.NewPCG(3, 4))
	contents := []string{"", "short", strings.Repeat("😀", core.ContextContentChars+1), strings.Repeat("\xff", 5000)}
	for range 300 {
		var sb strings.Builder
		n := rng.IntN(3 * bodyHeadBytes / 2)
		for sb.Len() < n {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		contents = append(contents, sb.String())
	}
	for _, c := range contents {
		rec, err := encodeBody(nil, &core.Note{ID: "n", Content: c, Frontmatter: map[string]any{"k": "v"}})
		require.NoError(t, err)
		want, err := decodeBody("n", rec, true, false)
		require.NoError(t, err)
		got, err := decodeBodyHead("n", rec[:min(len(rec), bodyHeadBytes)])
		require.NoError(t, err)
		require.Equal(t, want.content, got.content, "content of %d bytes", len(c))
		require.Nil(t, got.frontmatter)
	}
	rec, err := encodeBody(nil, &core.Note{ID: "n", Content: "a content cut short"})
	require.NoError(t, err)
	_, err = decodeBodyHead("n", rec[:6])
	require.ErrorIs(t, err, errBadRecord)
	_, err = decodeBodyHead("n", []byte{recordVersion + 1, 0})
	require.ErrorIs(t, err, errBadRecord)
}
