package vault

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/vaultgraph/vaultgraph/core"
)

const utf8BOM = "\ufeff"

// parsedNote is a note as read from its file, before the vault assigns its
// final ID (case collisions) and resolves its links.
type parsedNote struct {
	note     core.Note  // ID is the lowercased path; links are unresolved
	spans    []linkSpan // where each of note.Links is written, same order
	warnings []string   // parse problems: frontmatter, tags
	bom      int        // bytes of BOM before the text the spans index
	// bodyAt is where note.Content starts in the file's bytes. A first
	// sync drops the content after parsing (bodyless) and reads it back
	// from there when it writes the note (Mirror.withBodies).
	bodyAt   int
	bodyless bool
}

// dropBody forgets the note's content, which withBodies reads back from
// the file (checked against the hash) when the note is written: a first
// sync then holds no note's text between reading the vault and writing it.
func (p *parsedNote) dropBody() {
	if core.KindOf(p.note.Path) != core.KindNote {
		return // an attachment has none; a canvas's is not its file's bytes
	}
	p.note.Content = ""
	p.bodyless = true
}

// bodyOf is the content of a note whose file's bytes are raw and whose body
// starts at bodyAt: what parseNote gives as Content.
func bodyOf(raw []byte, bodyAt int) string {
	return strings.ReplaceAll(string(raw[min(bodyAt, len(raw)):]), "\r\n", "\n")
}

// Parse reads one note: path is its vault-relative path with "/"
// separators, raw the file's bytes. The returned note has its ID (the
// lowercased path; see the package documentation for case collisions),
// Path, Keys, Title, Content, Tags, Frontmatter, Hash and Links with their
// Key but no Target: resolving needs the whole vault. The warnings name
// frontmatter problems ("notes/x.md:3: frontmatter: ...") and ignored tags
// ("Duplicate tag ignored: ml"). Parse never fails: whatever the bytes,
// the note loads and its body is indexed.
func Parse(path string, raw []byte) (core.Note, []string) {
	p := parseNote(path, raw)
	return p.note, p.warnings
}

// hashOf is a note's content hash: hex SHA-256 of the file's bytes.
func hashOf(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// maskBuffers holds the masked copies parseNote scans for links and tags:
// each is garbage once the note is parsed (nothing it returns points into
// it), and a first sync made one the size of every note's text.
var maskBuffers = sync.Pool{New: func() any { return new([]byte) }}

// spanBuffers holds the lists parseNote finds links into before it keeps
// an exact copy: grown link by link, they were a third of a first sync's
// garbage from parsing.
var spanBuffers = sync.Pool{New: func() any { return new([]linkSpan) }}

// parseNote parses a copy of raw, which the caller may reuse.
func parseNote(path string, raw []byte) parsedNote {
	return parseOwned(path, bytes.Clone(raw))
}

// parseOwned is parseNote for a raw the caller hands over and never
// changes again: the note's text (its Content, the strings its links and
// frontmatter are scanned from) is raw's bytes, not a copy of them (a
// first sync copied each file once more this way, ~2.5 KB a note).
func parseOwned(path string, raw []byte) parsedNote {
	switch core.KindOf(path) {
	case core.KindCanvas:
		return parseCanvas(path, raw)
	case core.KindAttachment:
		return parseAttachment(path, hashOf(raw), int64(len(raw)))
	}
	text := unsafe.String(unsafe.SliceData(raw), len(raw))
	bom := 0
	if strings.HasPrefix(text, utf8BOM) {
		bom = len(utf8BOM)
		text = text[bom:]
	}
	out := parsedNote{bom: bom}
	n := &out.note
	n.Path = path
	n.ID = groupKey(path)
	n.Keys = NoteKeys(path)
	n.Hash = hashOf(raw)
	n.Size = int64(len(raw))

	body := text
	spanBuf := spanBuffers.Get().(*[]linkSpan)
	found := *spanBuf // the links found, frontmatter's first
	if fm, ok := splitFrontmatter(text); ok {
		body = text[fm.bodyStart:]
		var warnings []string
		n.Frontmatter, warnings = parseFrontmatter(path, fm.yaml)
		out.warnings = append(out.warnings, warnings...)
		// Obsidian links properties written as "[[Note]]": scan the raw
		// block, which works even where the YAML does not parse.
		head := text[:fm.bodyStart]
		found = scanWikilinks(found, raw[bom:bom+len(head)], head, 0, dirOf(path))
	}
	base := len(text) - len(body)
	out.bodyAt = bom + base

	buf := maskBuffers.Get().(*[]byte)
	masked := maskInto(*buf, body)
	defer func() {
		*buf = masked[:0]
		maskBuffers.Put(buf)
	}()
	fmLinks := len(found)
	found = scanWikilinks(found, masked, body, base, dirOf(path))
	for _, s := range found[fmLinks:] {
		blank(masked, s.start-base, s.end-base)
	}
	wikiEnd := len(found)
	found = scanMarkdownLinks(found, masked, body, base, path)
	for _, s := range found[wikiEnd:] {
		blank(masked, s.start-base, s.end-base)
	}
	if wikiEnd > fmLinks && len(found) > wikiEnd {
		slices.SortStableFunc(found[fmLinks:], func(a, b linkSpan) int { return cmp.Compare(a.start, b.start) })
	}
	// The note keeps its own exact copy; found goes back to the pool
	// without its strings, which point into the text.
	var spans []linkSpan
	if len(found) > 0 {
		spans = slices.Clone(found)
	}
	clear(found)
	*spanBuf = found[:0]
	spanBuffers.Put(spanBuf)

	compactLinkText(spans)
	out.spans = spans
	n.Links = make([]core.Link, len(spans))
	for i, s := range spans {
		n.Links[i] = s.link
	}

	fmTags, tagWarnings := frontmatterTags(path, n.Frontmatter)
	out.warnings = append(out.warnings, tagWarnings...)
	var dupWarnings []string
	n.Tags, dupWarnings = dedupeTags(fmTags, inlineTags(masked))
	out.warnings = append(out.warnings, dupWarnings...)
	if n.Tags == nil {
		n.Tags = []string{}
	}

	n.Title = titleFromPath(path)
	if t, ok := n.Frontmatter["title"].(string); ok && strings.TrimSpace(t) != "" {
		n.Title = strings.TrimSpace(t)
	}
	n.Content = strings.ReplaceAll(body, "\r\n", "\n")
	return out
}

// compactLinkText copies the strings of spans' links (Raw, Key, Alias,
// Heading, the target as written) into one allocation of their own. They
// are windows into the file's text as scanned, and the vault's index keeps
// each link's key and written target for as long as the note exists: a
// window would keep the note's whole text alive with it (at 100k notes,
// every note's text, after a first sync that read them all). Most of them
// are windows into Raw, so the copy is about the size of the Raw texts.
func compactLinkText(spans []linkSpan) {
	if len(spans) == 0 {
		return
	}
	size := 0
	for i := range spans {
		size += len(spans[i].link.Raw)
	}
	var b strings.Builder
	b.Grow(size)
	for i := range spans {
		b.WriteString(spans[i].link.Raw)
	}
	all := b.String()
	var extra []byte
	var extraAt []*string
	off := 0
	for i := range spans {
		s := &spans[i]
		raw := all[off : off+len(s.link.Raw)]
		off += len(s.link.Raw)
		s.link.Raw = raw
		for _, f := range [...]*string{&s.link.Key, &s.link.Alias, &s.link.Heading, &s.written} {
			switch j := strings.Index(raw, *f); {
			case *f == "":
			case j >= 0:
				*f = raw[j : j+len(*f)]
			default: // a key lowercased or normalised: copied below
				extra = append(extra, *f...)
				extraAt = append(extraAt, f)
			}
		}
	}
	if len(extraAt) == 0 {
		return
	}
	rest := string(extra)
	off = 0
	for _, f := range extraAt {
		*f, off = rest[off:off+len(*f)], off+len(*f)
	}
}
