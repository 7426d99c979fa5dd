package keyword

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// referenceTerms is the definition scanTerms implements in one pass: the
// lower-cased text split at whatever is not a letter or digit, stop words
// removed.
func referenceTerms(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if !stopWords[f] {
			out = append(out, f)
		}
	}
	return out
}

func referenceCounts(text string) map[string]int32 {
	counts := map[string]int32{}
	for _, t := range referenceTerms(text) {
		counts[t]++
	}
	return counts
}

// termCounts is a as a map of term counts.
func (a Analysis) termCounts() map[string]int32 {
	out := map[string]int32{}
	for t, at := range a.slots {
		out[t] = a.counts[at]
	}
	return out
}

// checkTerms fails unless Terms and Analyze agree with the reference on text.
func checkTerms(t *testing.T, text string) {
	t.Helper()
	want := referenceTerms(text)
	if got := Terms(text); !slices.Equal(got, want) {
		t.Fatalf("Terms(%q)\n got %q\nwant %q", text, got, want)
	}
	a := Analyze(text)
	if got := a.termCounts(); a.length != len(want) || !maps.Equal(got, referenceCounts(text)) {
		t.Fatalf("Analyze(%q) = %v (%d terms), want %v (%d)", text, got, a.length, referenceCounts(text), len(want))
	}
}

func TestTermsMatchTheReference(t *testing.T) {
	for _, text := range []string{
		"", " ", "The", "THE quick Brown fox", "naïve CAFÉ Ünïcödé", "İstanbul ΣΊΣΥΦΟΣ straße",
		"x\xffy \xe2\x80 z", "a1b2 ２０２４ ٣", "Ⅻ ⓐⒷ", "#tag [[Link|Alias]] `code` don't",
		"mixedCASE word Word WORD", strings.Repeat("Alpha beta ", 50),
	} {
		checkTerms(t, text)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "B", "z", "Q", "0", "9", " ", "\n", "-", "'", "é", "É", "ß", "Σ", "İ", "日", "٣", "Ⅻ", "\xff", "\xe2", "the", "The", "AND"}
	for range 5000 {
		var sb strings.Builder
		for range rng.IntN(30) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		checkTerms(t, sb.String())
	}
}

// Parts are analysed as if joined by a separator.
func TestAnalyzeParts(t *testing.T) {
	a := Analyze("Title Words", "content WORDS here")
	joined := "Title Words\ncontent WORDS here"
	if want := referenceCounts(joined); a.length != len(referenceTerms(joined)) || !maps.Equal(a.termCounts(), want) {
		t.Fatalf("Analyze(parts) = %v (%d), want %v (%d)", a.termCounts(), a.length, want, len(referenceTerms(joined)))
	}
}

func FuzzTerms(f *testing.F) {
	for _, s := range []string{"The naïve café, in 2024: Go!", "İ\xff ΣΑ", "don't STOP"} {
		f.Add(s)
	}
	f.Fuzz(checkTerms)
}

func BenchmarkAnalyze(b *testing.B) {
	text := strings.Repeat("The Graph of notes links [[Alpha]] to #beta, and Beta to gamma; naïve café 2024.\n", 20)
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			Analyze(text)
		}
	})
	b.Run("reference", func(b *testing.B) { // how Analyze worked before
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			referenceCounts(text)
		}
	})
}

// TestIsStopWordIsTheList: the buckets in front of the stop word list
// answer as the list does, for its words and for words near them.
func TestIsStopWordIsTheList(t *testing.T) {
	words := []string{"x", "further", "furthers", "zz", "themselves", "thé", "ünder"}
	for w := range stopWords {
		if len(w) > maxStopWord {
			t.Errorf("stop word %q is longer than maxStopWord %d", w, maxStopWord)
		}
		words = append(words, w, w+"s", "q"+w[1:], w[:len(w)-1]+"q", w[:len(w)-1])
	}
	for c := range 256 {
		for n := 1; n <= maxStopWord+1; n++ {
			words = append(words, string(rune(c))+strings.Repeat("e", n-1))
		}
	}
	for _, w := range words {
		if w == "" {
			continue
		}
		if got, want := isStopWord(w), stopWords[w]; got != want {
			t.Errorf("isStopWord(%q) = %v, the list says %v", w, got, want)
		}
	}
}

// scanProse is English prose as notes have it, and a paragraph of a
// generated vault's (cmd/vggen).
const (
	scanProse = `When I started keeping notes I wrote everything into one long file, and it was
fine for a month. Then the file grew, and finding anything meant scrolling for minutes. So I
split it by project, which helped until a meeting touched two projects at once and I could not
decide where it belonged. Links solved that: a note for the meeting, linked from both projects,
and a daily note that links to whatever I did that day. Now I search less and follow links more.
The hard part is not writing notes but coming back to them: a weekly review where I read what I
wrote, merge what repeats and delete what no longer matters.`
	scanGenerated = `Character audit mountain bread recipe empire review habit insight lower basil
finance diet design partition course receipt people airport routine paper ledger recipe piano.
Kitchen backlog mentor robust chapter writing syntax buffer simple rhythm network synapse module
queue finance window physics museum emerald legend poem version family tempo weekly runtime
lattice gradient poem security module comet. Harmony. Mortgage empire. Question student vector.`
)

func BenchmarkScan(b *testing.B) {
	for _, c := range []struct{ name, text string }{{"prose", scanProse}, {"generated", scanGenerated}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			var scratch []byte
			n := 0
			for b.Loop() {
				scratch = Scan(c.text, scratch, func(string, []byte) { n++ })
			}
		})
	}
}
