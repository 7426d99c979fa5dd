package memory

import (
	"slices"
	"strings"
	"unicode"
)

// The analyses (contradictions, supersession, near-duplicates) first ask
// the embeddings whether two memories speak of the same thing, then read
// the texts for what tells them apart. Embeddings cannot: "PostgreSQL 15"
// and "PostgreSQL 16", "use tabs" and "use spaces", "always run the tests
// before merging" and "never merge without running the tests" are all
// 0.9 similar. The reading is a heuristic over words, measured on the
// labelled pairs of memory/testdata/analyses.json (docs/MEMORY.md has the
// figures and what it misses).

// token is a word of a memory: its stem, and whether it is a content word.
type token struct {
	stem    string
	raw     string
	content bool
	number  bool
	sep     bool // a clause boundary (, ; . : ! ?) ends a negation's scope
}

// stopWords carry no claim of their own: articles, prepositions,
// auxiliaries, pronouns and the light verbs that only carry a sentence
// ("use X", "make X").
var stopWords = set("a an the this that these those it its it's their our your my his her them they we you i " +
	"is are was were be been being am to of in on at by for with from into onto as and or but if so than then " +
	"do does did doing have has had having should must can could will would may might shall " +
	"use uses used using make makes made keep keeps kept go goes get gets got " +
	"any all every each some there here what which who whom whose when where how why also just only very " +
	"user user's users")

// negations make what follows them not hold.
var negations = set("not no never don't dont doesn't doesnt didn't didnt isn't isnt aren't arent wasn't wasnt " +
	"won't wont can't cant cannot shouldn't shouldnt mustn't mustnt without avoid avoids avoiding neither nor")

// polarity words state how strongly a statement holds, not what it is
// about: they never count as content.
var polarity = set("always never")

// numberWords are numbers written out.
var numberWords = map[string]string{"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
	"six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "twelve": "12", "once": "1", "twice": "2"}

// changeWords say that a statement replaces an earlier one.
var changeWords = set("now switched switch switching moved migrated migrate replaced replace replaces instead " +
	"raised lowered increased decreased upgraded downgraded anymore longer")

// opposites are word pairs that flip a statement when they govern the same
// subject ("prefer dark mode" / "prefer light mode").
var opposites = [][2]string{
	{"enable", "disable"}, {"enabled", "disabled"}, {"true", "false"}, {"yes", "no"},
	{"light", "dark"}, {"allow", "forbid"}, {"allow", "deny"}, {"allowed", "forbidden"}, {"on", "off"},
	{"increase", "decrease"}, {"like", "dislike"}, {"likes", "dislikes"},
	{"include", "exclude"}, {"sync", "async"}, {"synchronous", "asynchronous"}, {"before", "after"},
	{"more", "less"}, {"tabs", "spaces"}, {"good", "bad"}, {"required", "optional"}, {"public", "private"},
	{"prefer", "avoid"}, {"use", "avoid"},
}

func set(words string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(words) {
		out[w] = true
	}
	return out
}

// stem cuts the common English endings, so that "merging", "merge" and
// "merged" meet: a light suffix stripper, not a full Porter stemmer.
func stem(w string) string {
	for _, suf := range []string{"ations", "ation", "ings", "ing", "edly", "ed", "ies", "es", "s", "ly"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			w = strings.TrimSuffix(w, suf)
			if suf == "ies" {
				w += "y"
			}
			break
		}
	}
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1] // running -> runn -> run
	}
	if n := len(w); n >= 4 && w[n-1] == 'e' {
		w = w[:n-1] // merge -> merg, like merging
	}
	return w
}

// tokenize splits text into words (letters and digits; an apostrophe
// inside a word is kept, an underscore or hyphen splits), lower-cased,
// with clause boundaries.
func tokenize(text string) []token {
	var out []token
	var cur []rune
	flush := func() {
		if len(cur) == 0 {
			return
		}
		w := strings.Trim(string(cur), "'")
		cur = cur[:0]
		if w == "" {
			return
		}
		tk := token{raw: w, stem: stem(w)}
		switch {
		case numberWords[w] != "":
			tk.stem, tk.number = numberWords[w], true
		case unicode.IsDigit([]rune(w)[0]):
			tk.stem, tk.number = w, true
		default:
			tk.content = !stopWords[w] && !negations[w] && !polarity[w] && !changeWords[w]
		}
		out = append(out, tk)
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'':
			cur = append(cur, r)
		case strings.ContainsRune(",;.:!?", r):
			flush()
			out = append(out, token{sep: true})
		default:
			flush()
		}
	}
	flush()
	return out
}

// reading is what comparison needs of one memory's text.
type reading struct {
	tokens  []token
	stems   map[string]bool // content stems
	negated map[string]bool // content stems a negation governs
	numbers []string
	changes []string // change words it uses
	raw     map[string]bool
}

func read(text string) reading {
	r := reading{tokens: tokenize(text), stems: map[string]bool{}, negated: map[string]bool{}, raw: map[string]bool{}}
	for i, tk := range r.tokens {
		switch {
		case tk.sep:
		case tk.number:
			r.numbers = append(r.numbers, tk.stem)
		case tk.content:
			r.stems[tk.stem] = true
		}
		r.raw[tk.raw] = true
		r.raw[tk.stem] = true
		if changeWords[tk.raw] {
			r.changes = append(r.changes, tk.raw)
		}
		if negations[tk.raw] {
			if g := governed(r.tokens, i); g != "" {
				r.negated[g] = true
			}
		}
	}
	slices.Sort(r.numbers)
	return r
}

// governed is the first content word after the negation at i, within its
// clause: what the negation denies ("never deploy on Fridays": deploy;
// "do not use Redux": redux; "tabs, not spaces": spaces).
func governed(tokens []token, i int) string {
	for _, tk := range tokens[i+1:] {
		switch {
		case tk.sep:
			return ""
		case tk.content:
			return tk.stem
		}
	}
	return ""
}

// negationsAbout counts the negations of r that deny something the other
// text speaks of. A negation about a word the other text lacks ("tabs,
// not spaces" against "use tabs") states an exclusion the other text does
// not contradict.
func negationsAbout(r, other reading) int {
	n := 0
	for i, tk := range r.tokens {
		if !negations[tk.raw] {
			continue
		}
		if g := governed(r.tokens, i); g != "" && other.stems[g] {
			n++
		}
	}
	return n
}

// overlap is the share of content words the two texts have in common
// (Jaccard), leaving out the words in skip.
func overlap(a, b reading, skip ...string) float64 {
	inter, union := 0, 0
	seen := map[string]bool{}
	for _, s := range skip {
		seen[s] = true
	}
	for w := range a.stems {
		if seen[w] {
			continue
		}
		union++
		if b.stems[w] {
			inter++
		}
	}
	for w := range b.stems {
		if !seen[w] && !a.stems[w] {
			union++
		}
	}
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

// shared counts the content words two texts have in common.
func shared(a, b reading) int {
	n := 0
	for w := range a.stems {
		if b.stems[w] {
			n++
		}
	}
	return n
}

// sameSubject is how much of their content two texts must share, besides
// the words that set them apart, to be statements about one subject.
const sameSubject = 0.5

// conflict explains why two texts about the same subject cannot both hold
// as they stand, or returns "": opposite terms governing the same subject,
// a negation of something the other affirms, different numbers, one or two
// content words swapped for others in otherwise equal texts (at least two
// content words in common: "use camelCase for JSON fields" / "use
// snake_case for JSON fields"), or a text saying it changed what the other
// states.
func conflict(a, b string) string {
	ra, rb := read(a), read(b)
	for _, p := range opposites {
		for _, pq := range [][2]string{p, {p[1], p[0]}} {
			x, y := stem(pq[0]), stem(pq[1])
			if ra.raw[x] && !ra.raw[y] && rb.raw[y] && !rb.raw[x] &&
				overlap(ra, rb, x, y) >= sameSubject {
				return "opposite terms: " + p[0] + " / " + p[1]
			}
		}
	}
	if negationsAbout(ra, rb)%2 != negationsAbout(rb, ra)%2 {
		return "one negates what the other states"
	}
	if !slices.Equal(ra.numbers, rb.numbers) && overlap(ra, rb) >= sameSubject {
		return "different values: " + orNone(ra.numbers) + " / " + orNone(rb.numbers)
	}
	onlyA, wordsA := swapped(ra, rb)
	onlyB, wordsB := swapped(rb, ra)
	if len(onlyA) > 0 && len(onlyB) > 0 && len(onlyA)+len(onlyB) <= 3 && shared(ra, rb) >= 2 &&
		overlap(ra, rb, append(onlyA, onlyB...)...) >= 0.6 {
		return "different values: " + strings.Join(wordsA, " ") + " / " + strings.Join(wordsB, " ")
	}
	if changes := append(ra.changes, rb.changes...); len(changes) > 0 && overlap(ra, rb) >= 0.25 {
		return "one says it changed: " + changes[0]
	}
	return ""
}

// swapped lists the content words of r the other text lacks, in text
// order, leaving out what a negation of r denies (an exclusion, not a
// claim). It returns their stems and the words as written.
func swapped(r, other reading) (stems, words []string) {
	seen := map[string]bool{}
	for _, tk := range r.tokens {
		if tk.content && !seen[tk.stem] && !other.stems[tk.stem] && !r.negated[tk.stem] {
			seen[tk.stem] = true
			stems = append(stems, tk.stem)
			words = append(words, tk.raw)
		}
	}
	return stems, words
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, " ")
}
