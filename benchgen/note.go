package benchgen

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"strings"
)

// rendered is one note's file and what went into it.
type rendered struct {
	data    []byte
	size    int      // len(data), kept once data is dropped
	tags    []string // distinct, frontmatter first, as written
	links   int      // link occurrences, broken ones included
	broken  int      // link occurrences that resolve to no note
	targets []int    // distinct notes linked to
}

// noteWriter renders note i from its own PCG stream (sequence i+1), so
// notes can be rendered in any order, in parallel, with the same bytes.
type noteWriter struct {
	p   *plan
	i   int
	rng *rand.Rand
	out rendered
	// seen marks the targets already in out.targets.
	seen map[int]bool
}

func (p *plan) render(i int) rendered {
	w := &noteWriter{p: p, i: i, rng: rand.New(rand.NewPCG(p.cfg.Seed, uint64(i)+1)), seen: map[int]bool{}}
	return w.render()
}

func (w *noteWriter) render() rendered {
	size := w.size()
	links := w.linkList(size)
	tags := w.pickTags(w.rng.IntN(5))
	inline := w.pickTags(w.rng.IntN(4))

	var buf bytes.Buffer
	buf.Grow(size + 64*len(links))
	if w.rng.Float64() < frontmatterShare {
		var related string
		if w.p.cfg.Notes > 1 && w.rng.IntN(10) == 0 {
			related = w.propertyLink()
		}
		w.frontmatter(&buf, tags, related)
		w.addTags(tags)
	} else {
		inline = append(tags, inline...) // no frontmatter: every tag is inline
	}
	w.addTags(inline)
	w.body(&buf, size, links, inline)
	w.out.data = buf.Bytes()
	return w.out
}

// size draws the note's target size: log-normal, clamped.
func (w *noteWriter) size() int {
	s := medianNoteSize * math.Exp(sizeSigma*w.rng.NormFloat64())
	return int(min(max(s, minNoteSize), maxNoteSize*0.95)) // headroom for trailing links
}

// linkList draws the note's links, already written as markdown.
func (w *noteWriter) linkList(size int) []string {
	n := int(float64(size) / bytesPerLink * (0.5 + w.rng.Float64()))
	if w.rng.Float64() < mocShare {
		n = 50 + w.rng.IntN(250)
	}
	notes := w.p.cfg.Notes
	var zipf *rand.Zipf
	if notes > 1 {
		zipf = rand.NewZipf(w.rng, hubZipfS, 1, uint64(notes-1))
	}
	links := make([]string, 0, n)
	for range n {
		r := w.rng.Float64()
		j := -1
		switch {
		case r < brokenShare || notes == 1:
		case r < brokenShare+hubShare:
			j = w.p.hubRank[zipf.Uint64()]
		default:
			j = w.rng.IntN(notes)
		}
		if j == w.i { // no self links: take the next note instead
			j = (j + 1) % notes
		}
		if j < 0 {
			links = append(links, w.brokenLink())
			continue
		}
		links = append(links, w.link(j))
	}
	return links
}

func (w *noteWriter) brokenLink() string {
	w.out.links++
	w.out.broken++
	target := fmt.Sprintf("%s %s %d", brokenPrefix, words[w.rng.IntN(len(words))], w.rng.IntN(1_000_000))
	if w.rng.IntN(5) == 0 {
		return "[[" + target + "|" + words[w.rng.IntN(len(words))] + "]]"
	}
	return "[[" + target + "]]"
}

// link writes a link to note j in one of the forms vaults use.
func (w *noteWriter) link(j int) string {
	w.addTarget(j)
	t := w.p.linkTarget(j)
	switch r := w.rng.IntN(100); {
	case r < 70:
		return "[[" + t + "]]"
	case r < 80:
		return "[[" + t + "|" + words[w.rng.IntN(len(words))] + " " + words[w.rng.IntN(len(words))] + "]]"
	case r < 88:
		return "[[" + t + "#" + headings[w.rng.IntN(len(headings))] + "]]"
	case r < 92:
		return "![[" + t + "]]"
	default: // markdown link by vault path, URL-escaped
		return "[" + words[w.rng.IntN(len(words))] + "](/" + escapePath(w.p.paths[j]) + ")"
	}
}

// propertyLink is a wikilink to a uniformly chosen other note, for a
// frontmatter property: only wikilinks are links there.
func (w *noteWriter) propertyLink() string {
	j := w.rng.IntN(w.p.cfg.Notes - 1)
	if j >= w.i {
		j++
	}
	w.addTarget(j)
	return "[[" + w.p.linkTarget(j) + "]]"
}

// addTarget counts one link to note j.
func (w *noteWriter) addTarget(j int) {
	w.out.links++
	if !w.seen[j] {
		w.seen[j] = true
		w.out.targets = append(w.out.targets, j)
	}
}

func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// pickTags draws up to n distinct Zipf-popular tags.
func (w *noteWriter) pickTags(n int) []string {
	if n == 0 {
		return nil
	}
	z := rand.NewZipf(w.rng, tagZipfS, 1, uint64(len(w.p.tags)-1))
	var out []string
	for range n {
		t := w.p.tags[z.Uint64()]
		dup := false
		for _, o := range out {
			dup = dup || o == t
		}
		if !dup {
			out = append(out, t)
		}
	}
	return out
}

// addTags records tags in the note's distinct tag list.
func (w *noteWriter) addTags(tags []string) {
	for _, t := range tags {
		dup := false
		for _, o := range w.out.tags {
			dup = dup || o == t
		}
		if !dup {
			w.out.tags = append(w.out.tags, t)
		}
	}
}

func (w *noteWriter) frontmatter(buf *bytes.Buffer, tags []string, related string) {
	rng := w.rng
	buf.WriteString("---\n")
	if rng.IntN(7) == 0 {
		fmt.Fprintf(buf, "title: %q\n", w.p.names[w.i]+" ("+words[rng.IntN(len(words))]+")")
	}
	if rng.IntN(20) == 0 {
		fmt.Fprintf(buf, "aliases: [%s, %s]\n", capitalize(words[rng.IntN(len(words))]), words[rng.IntN(len(words))])
	}
	switch {
	case len(tags) == 0:
	case rng.IntN(3) == 0:
		fmt.Fprintf(buf, "tags: [%s]\n", strings.Join(tags, ", "))
	default:
		buf.WriteString("tags:\n")
		for _, t := range tags {
			fmt.Fprintf(buf, "  - %s\n", t)
		}
	}
	fmt.Fprintf(buf, "created: %04d-%02d-%02d\n", 2015+rng.IntN(11), 1+rng.IntN(12), 1+rng.IntN(28))
	fmt.Fprintf(buf, "status: %s\n", statuses[rng.IntN(len(statuses))])
	if rng.IntN(4) == 0 {
		fmt.Fprintf(buf, "rating: %d\n", 1+rng.IntN(5))
	}
	if related != "" {
		fmt.Fprintf(buf, "related: %q\n", related)
	}
	buf.WriteString("---\n")
}

// body writes the title heading and text until the file reaches size,
// spreading links and inline tags over the words, then lists the links
// that did not fit in the text. Code blocks and spans hold link- and
// tag-like text that a correct parser ignores.
func (w *noteWriter) body(buf *bytes.Buffer, size int, links, tags []string) {
	rng := w.rng
	fmt.Fprintf(buf, "# %s\n\n", w.p.names[w.i])
	// Inline tags are placed among the words like links.
	items := append(append([]string(nil), links...), prefixed("#", tags)...)
	rng.Shuffle(len(items), func(a, b int) { items[a], items[b] = items[b], items[a] })
	codeDone := false
	for buf.Len() < size {
		switch r := rng.IntN(100); {
		case r < 12:
			fmt.Fprintf(buf, "## %s\n\n", headings[rng.IntN(len(headings))])
		case r < 20:
			for range 2 + rng.IntN(4) {
				buf.WriteString("- ")
				items = w.words(buf, 3+rng.IntN(8), size, items)
				buf.WriteString("\n")
			}
			buf.WriteString("\n")
		case r < 22 && !codeDone:
			codeDone = true
			fmt.Fprintf(buf, "```go\n// see [[%s %d]] and #%s\nfunc %s() int { return %d }\n```\n\n",
				capitalize(words[rng.IntN(len(words))]), rng.IntN(100), words[rng.IntN(len(words))],
				words[rng.IntN(len(words))], rng.IntN(1000))
		case r < 24:
			fmt.Fprintf(buf, "Inline code `[[%s]]` is not a link.\n\n", capitalize(words[rng.IntN(len(words))]))
		default:
			items = w.words(buf, 20+rng.IntN(100), size, items)
			buf.WriteString("\n\n")
		}
	}
	if len(items) > 0 {
		buf.WriteString("## Related\n\n")
		for _, it := range items {
			fmt.Fprintf(buf, "- %s\n", it)
		}
	}
}

// words writes up to n words as sentences, stopping once buf reaches
// size. Each word is replaced by the next pending item (link or tag) with
// the probability that spreads the items evenly over the remaining text.
// It returns the items not yet written.
func (w *noteWriter) words(buf *bytes.Buffer, n, size int, items []string) []string {
	rng := w.rng
	start := true
	for k := 0; k < n && buf.Len() < size; k++ {
		if k > 0 {
			buf.WriteByte(' ')
		}
		remaining := max(1, (size-buf.Len())/7) // about 7 bytes a word
		if len(items) > 0 && rng.IntN(remaining) < len(items) {
			buf.WriteString(items[0])
			items = items[1:]
			continue
		}
		word := words[rng.IntN(len(words))]
		if start {
			word = capitalize(word)
		}
		buf.WriteString(word)
		start = rng.IntN(12) == 0
		if start || k == n-1 {
			buf.WriteByte('.')
		}
	}
	return items
}

func prefixed(prefix string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = prefix + s
	}
	return out
}
