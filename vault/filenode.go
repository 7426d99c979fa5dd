package vault

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// Attachments and canvases are nodes of the graph (issue 45.2): every
// file of a kind core.KindOf names, found by the walk and the watcher as
// notes are, with the same IDs (the lowercased path) and keys (its path
// suffixes, with the extension: [[pic.png]], [[img/pic.png]]), so the one
// resolver resolves a note's links to them as to notes.

// attachmentHash stands for an attachment's content hash: its size, its
// modification time and its inode number. An attachment is never parsed,
// and an image or a video can be far larger than any note, so it is not
// read: a change of the file (which moves its mtime) is a new "hash", as
// a change of a note's text is.
func attachmentHash(st fileStat) string {
	return fmt.Sprintf("file:%d:%d:%d", st.size, st.mtime.UnixNano(), st.ino)
}

// readAttachment is Mirror.read for an attachment: a stat, no read.
func (m *Mirror) readAttachment(rel, known string) (fileChange, error) {
	info, err := m.fs.Stat(rel)
	if err != nil {
		return fileChange{}, err
	}
	if !info.IsRegular() {
		return fileChange{}, fmt.Errorf("%s: not a regular file: %w", rel, fs.ErrNotExist)
	}
	st := fileStat{path: rel, size: info.Size, mtime: info.ModTime, ino: info.Ino}
	m.filesRead.Add(1)
	c := fileChange{path: rel, stat: st}
	hash := attachmentHash(st)
	if known != "" && hash == known {
		c.unchanged = true
		return c, nil
	}
	p := parseAttachment(rel, hash, st.size)
	c.parsed = &p
	return c, nil
}

// parseAttachment is the node of the attachment at rel: titled by its file
// name (with its extension, as Obsidian shows it), no content, no tags, no
// links.
func parseAttachment(rel, hash string, size int64) parsedNote {
	var out parsedNote
	n := &out.note
	n.Path = rel
	n.ID = groupKey(rel)
	n.Keys = NoteKeys(rel)
	n.Hash = hash
	n.Size = size
	n.Title = path.Base(rel)
	n.Tags = []string{}
	return out
}

// canvasFile is the part of a JSON Canvas file (jsoncanvas.org, 1.0) the
// graph reads: its nodes. Edges join cards within the canvas and are not
// links between files.
type canvasFile struct {
	Nodes []canvasNode `json:"nodes"`
}

// canvasNode is one card of a canvas: a "text" card holds markdown, a
// "file" card shows a file of the vault by its path from the vault root
// (with a "subpath" such as "#Heading"); "link" (a URL) and "group" cards
// link nothing.
type canvasNode struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	File    string `json:"file"`
	Subpath string `json:"subpath"`
}

// parseCanvas is the node of the canvas at rel: titled by its file name
// (with ".canvas"), its content the text of its text cards (one paragraph
// each, so search finds a canvas by what is written on it), its links
// those of its file cards (each an embed of the file, by vault path) and
// of its text cards' markdown, in card order. A file that is not JSON is
// a canvas with no cards and a warning. The spans of a canvas's links are
// not in its file's bytes (a card's text is a JSON string): a rename
// rewrites them by card (applyCanvasRewrite).
func parseCanvas(rel string, raw []byte) parsedNote {
	var out parsedNote
	n := &out.note
	n.Path = rel
	n.ID = groupKey(rel)
	n.Keys = NoteKeys(rel)
	n.Hash = hashOf(raw)
	n.Size = int64(len(raw))
	n.Title = path.Base(rel)
	n.Tags = []string{}
	var cf canvasFile
	if err := json.Unmarshal(raw, &cf); err != nil {
		out.warnings = append(out.warnings, fmt.Sprintf("%s: canvas is not JSON Canvas: %v", rel, err))
		return out
	}
	var texts []string
	var spans []linkSpan
	for _, c := range cf.Nodes {
		switch c.Type {
		case "file":
			f := strings.TrimSpace(c.File)
			key := LinkKey(f)
			if f == "" || key == "" {
				continue
			}
			heading, _ := strings.CutPrefix(strings.TrimSpace(c.Subpath), "#")
			spans = append(spans, linkSpan{
				written: f,
				fixed:   true,
				card:    true,
				link:    core.Link{Raw: f + c.Subpath, Key: key, Heading: heading, Embed: true},
			})
		case "text":
			if strings.TrimSpace(c.Text) == "" {
				continue
			}
			texts = append(texts, c.Text)
			for _, s := range scanText(c.Text, rel) {
				s.fixed = true
				spans = append(spans, s)
			}
		}
	}
	compactLinkText(spans)
	out.spans = spans
	n.Links = make([]core.Link, len(spans))
	for i, s := range spans {
		n.Links[i] = s.link
	}
	n.Content = strings.ReplaceAll(strings.Join(texts, "\n\n"), "\r\n", "\n")
	return out
}

// scanText finds the wikilinks and markdown links of a markdown text that
// is not a note's body (a canvas's text card), as written in the file at
// notePath, in text order. Links inside code are left out, as in a note.
func scanText(text, notePath string) []linkSpan {
	masked := maskInto(nil, text)
	found := scanWikilinks(nil, masked, text, 0, dirOf(notePath))
	for _, s := range found {
		blank(masked, s.start, s.end)
	}
	wikiEnd := len(found)
	found = scanMarkdownLinks(found, masked, text, 0, notePath)
	if wikiEnd > 0 && len(found) > wikiEnd {
		slices.SortStableFunc(found, func(a, b linkSpan) int { return cmp.Compare(a.start, b.start) })
	}
	return found
}

// onlyNotes refuses a write to an attachment or a canvas, which the tools
// change only as notes: vaultgraph writes markdown. what is what the
// write would have done ("changed", "deleted", "edited").
func onlyNotes(e *entry, what string) error {
	k := core.KindOf(e.path)
	if k == core.KindNote {
		return nil
	}
	return core.InvalidArgument("%s is %s (%s), not a markdown note: only notes are %s by vaultgraph's tools; change the file in the vault itself (the graph follows it)",
		e.path, article(k), core.MIMETypeOf(e.path), what)
}

// article is "an attachment" or "a canvas".
func article(k core.NodeKind) string {
	if k == core.KindAttachment {
		return "an attachment"
	}
	return "a " + string(k)
}

// UnresolvedLinks returns the targets, as written, of the links of the
// note with id that resolve to no note or file (each once, in document
// order; nil when none, and while the first sync runs): what get_node
// lists as "unresolved" (core.UnresolvedLister), so a model sees what the
// note names that the vault lacks. A link whose text cannot be read back
// is named by its key.
func (w *Writer) UnresolvedLinks(ctx context.Context, id string) []string {
	m := w.m
	select {
	case <-m.synced:
	default:
		return nil // the first sync holds the index
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.idx.byID[id]
	if e == nil {
		return nil
	}
	var out []string
	var texts []linkText
	read := false
	for i, l := range e.links {
		if l.target != "" {
			continue
		}
		if !read {
			texts, read = m.writtenTexts(ctx, e), true
		}
		name := l.key
		if i < len(texts) && texts[i].written != "" {
			name = texts[i].written
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}
