package vault

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"

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

func parseNote(path string, raw []byte) parsedNote {
	text := string(raw)
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
	var spans []linkSpan
	if fm, ok := splitFrontmatter(text); ok {
		body = text[fm.bodyStart:]
		var warnings []string
		n.Frontmatter, warnings = parseFrontmatter(path, fm.yaml)
		out.warnings = append(out.warnings, warnings...)
		// Obsidian links properties written as "[[Note]]": scan the raw
		// block, which works even where the YAML does not parse.
		head := text[:fm.bodyStart]
		spans = append(spans, scanWikilinks([]byte(head), head, 0)...)
	}
	base := len(text) - len(body)

	masked := maskText(body)
	wiki := scanWikilinks(masked, body, base)
	for _, s := range wiki {
		blank(masked, s.start-base, s.end-base)
	}
	md := scanMarkdownLinks(masked, body, base, path)
	for _, s := range md {
		blank(masked, s.start-base, s.end-base)
	}
	bodySpans := append(wiki, md...)
	sort.SliceStable(bodySpans, func(i, j int) bool { return bodySpans[i].start < bodySpans[j].start })
	spans = append(spans, bodySpans...)

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
