package neo4jstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"slices"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// A note's readable state lives in three properties:
//
//	doc        JSON of noteDoc: every field a read returns but content and targets
//	content    the note's text, as written (the fulltext index reads it too)
//	targets    [rev, target of link 0, target of link 1, ...] ("" while unresolved)
//
// Neo4j reads are read-committed, not snapshots: a reader walking a node's
// properties while a commit rewrites them can see some old and some new (a
// torn note; the storetest concurrency case shows it within seconds). A
// single property value is always read whole, so doc alone is consistent.
// Targets live apart because resolution and deletion rewrite them from
// Cypher (which can edit a list, not JSON), and rewriting a short list is
// far cheaper than rewriting the note (a cold load resolves thousands of
// links per batch). Both carry the revision of the upsert that wrote them
// (rev); a reader that finds doc.rev != targets[0] caught a rewrite
// half-way and reads again (errTorn).
//
// The content is stored once, in the content property that the fulltext
// index needs anyway; doc holds its length and CRC-32C (doc.Sum), so a
// reader that gets doc and content from different writes sees it (errTorn)
// unless the two writes stored the same text. Statements read a whole
// note as [n.doc, n.content] in the doc column (docAndContent). Until
// issue 44 doc held the content too, which stored every note's text
// twice: notes written then have no Sum and are read from doc alone.
//
// head is doc cut to what a neighbour or list entry shows (noteHead):
// title, tags, the link count and the first core.ContextContentChars+1
// characters of content, with doc's rev. NoteContext reads neighbours from
// it, so that a neighbour with 300 KB of content costs its first 500
// characters. A head whose rev is not targets[0] is torn like a doc;
// notes written before heads existed have none and are read from doc.
//
// The note's other properties (title, content, tagsNorm, hash, ...) exist
// for queries and indexes only; reads of whole notes never use them.
type noteDoc struct {
	Rev         string           `json:"rev"`
	Title       string           `json:"title"`
	Path        string           `json:"path"`
	Content     string           `json:"content,omitempty"` // notes written before issue 44 only
	Sum         *contentSum      `json:"sum,omitempty"`     // of the content property; nil before issue 44
	Tags        []string         `json:"tags,omitempty"`
	Hash        string           `json:"hash"`
	Size        int64            `json:"size,omitempty"`
	ModTime     time.Time        `json:"mtime"`
	Frontmatter json.RawMessage  `json:"frontmatter,omitempty"`
	Links       []linkRecord     `json:"links,omitempty"`
	Entity      *core.NoteEntity `json:"entity,omitempty"`
}

// noteHead is the head property (see noteDoc). Its fields share noteDoc's
// names, so a doc decodes as a head (neighbourHead), except the link count.
type noteHead struct {
	Rev     string   `json:"rev"`
	Title   string   `json:"title"`
	Content string   `json:"content"`
	Tags    []string `json:"tags,omitempty"`
	NLinks  int      `json:"nlinks"`
}

// linkRecord is a core.Link without its Target (see noteDoc).
type linkRecord struct {
	Raw     string `json:"raw,omitempty"`
	Key     string `json:"key,omitempty"`
	Alias   string `json:"alias,omitempty"`
	Heading string `json:"heading,omitempty"`
	Embed   bool   `json:"embed,omitempty"`
}

// noteRow turns a note into the row the write statements take. rev marks
// this write (see noteDoc); targets[i] is the final target of link i (""
// when unresolved); found and dangling are the distinct resolved targets and
// unresolved keys. Every list is non-nil: Cypher list functions treat a
// missing property as null, not as an empty list.
func noteRow(n *core.Note, rev string, targets []string) (map[string]any, error) {
	d := noteDoc{
		Rev:     rev,
		Title:   n.Title,
		Path:    n.Path,
		Sum:     sumOf(n.Content),
		Tags:    n.Tags,
		Hash:    n.Hash,
		Size:    n.Size,
		ModTime: n.ModTime,
		Links:   make([]linkRecord, len(n.Links)),
		Entity:  n.Entity,
	}
	if len(n.Frontmatter) > 0 {
		b, err := json.Marshal(n.Frontmatter)
		if err != nil {
			return nil, fmt.Errorf("encode frontmatter of %s: %w", n.ID, err)
		}
		d.Frontmatter = b
	}
	keys := make([]string, len(n.Links))
	found, dangling := []string{}, []string{}
	stored := make([]string, 1, 1+len(n.Links))
	stored[0] = rev
	for i, l := range n.Links {
		d.Links[i] = linkRecord{Raw: l.Raw, Key: l.Key, Alias: l.Alias, Heading: l.Heading, Embed: l.Embed}
		keys[i] = l.Key
		stored = append(stored, targets[i])
		switch {
		case targets[i] != "":
			if !slices.Contains(found, targets[i]) {
				found = append(found, targets[i])
			}
		case !slices.Contains(dangling, l.Key):
			dangling = append(dangling, l.Key)
		}
	}
	doc, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("encode note %s: %w", n.ID, err)
	}
	state, err := json.Marshal(noteStateDoc{Rev: rev, Path: n.Path, Size: &n.Size, ModTime: n.ModTime, Links: stateLinks(n.Links)})
	if err != nil {
		return nil, fmt.Errorf("encode note %s: %w", n.ID, err)
	}
	head, err := json.Marshal(noteHead{Rev: rev, Title: n.Title, Content: contentHead(n.Content), Tags: n.Tags, NLinks: len(n.Links)})
	if err != nil {
		return nil, fmt.Errorf("encode note %s: %w", n.ID, err)
	}
	ent, err := entityProps(n)
	if err != nil {
		return nil, err
	}
	row := map[string]any{
		"id":       n.ID,
		"title":    n.Title,
		"path":     n.Path,
		"content":  n.Content,
		"tagsNorm": normalizeTags(n.Tags),
		"hash":     n.Hash,
		"mtime":    n.ModTime.UTC(), // the instant is what counts; a zone name Neo4j does not know would fail
		"keys":     orEmpty(n.Keys),
		"linkKeys": keys,
		"doc":      string(doc),
		"head":     string(head),
		"state":    string(state),
		"targets":  stored,
		"found":    found,
		"dangling": dangling,
	}
	maps.Copy(row, ent)
	return row, nil
}

// normalizeTags returns the distinct comparison forms of tags.
func normalizeTags(tags []string) []string {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		if norm := core.NormalizeTag(t); !slices.Contains(out, norm) {
			out = append(out, norm)
		}
	}
	return out
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// errVanished marks a note deleted while a read was looking at it: the
// index still named it but its doc was already gone. Readers leave such a
// note out, as if they had come a moment later.
var errVanished = errors.New("note vanished during the read")

// errTorn marks a note read half-way through a rewrite (doc and targets of
// different revisions); the reader runs its query again.
var errTorn = errors.New("note read during a rewrite")

// contentHead cuts content to its first core.ContextContentChars+1
// characters (as core.TruncateContent counts them), which is what any
// truncation to at most ContextContentChars needs to give the same result
// as on the whole content.
func contentHead(content string) string {
	count := 0
	for i := range content { // whole runes; an invalid byte counts as one, as in TruncateContent
		if count == core.ContextContentChars+1 {
			return content[:i]
		}
		count++
	}
	return content
}

// decodeHead turns a neighbour's id, head (or doc, for a note written
// before heads) and targets into a note that holds what a view shows: ID,
// title, the start of its content, tags and link targets (see
// core.ContextQuery).
func decodeHead(project string, id, headValue, targetsValue any) (core.Note, error) {
	head, content := docAndContent(headValue)
	targets := strs(targetsValue)
	if head == "" || len(targets) == 0 {
		return core.Note{}, errVanished
	}
	var h struct {
		noteHead
		Links []json.RawMessage `json:"links"` // a doc's links: only their count matters
		Sum   *contentSum       `json:"sum"`   // a doc's: its content came beside it
	}
	if err := json.Unmarshal([]byte(head), &h); err != nil {
		return core.Note{}, fmt.Errorf("decode note %v: %w", id, err)
	}
	if h.Sum != nil {
		if content == nil || !h.Sum.matches(*content) {
			return core.Note{}, errTorn
		}
		h.Content = *content
	}
	nlinks := h.NLinks
	if h.Links != nil {
		nlinks = len(h.Links)
	}
	if h.Rev != targets[0] || len(targets)-1 != nlinks {
		return core.Note{}, errTorn
	}
	n := core.Note{Project: project, ID: str(id), Title: h.Title, Content: contentHead(h.Content), Tags: h.Tags}
	if nlinks > 0 {
		n.Links = make([]core.Link, nlinks)
		for i, t := range targets[1:] {
			n.Links[i] = core.Link{Target: t}
		}
	}
	return n, nil
}

// decodeNote turns a note's id, doc and targets back into a note of project.
func decodeNote(project string, id, docValue, targetsValue any) (core.Note, error) {
	doc, content := docAndContent(docValue)
	targets := strs(targetsValue)
	if doc == "" || len(targets) == 0 {
		return core.Note{}, errVanished
	}
	var d noteDoc
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		return core.Note{}, fmt.Errorf("decode note %v: %w", id, err)
	}
	if d.Rev != targets[0] || len(targets)-1 != len(d.Links) {
		return core.Note{}, errTorn
	}
	if d.Sum != nil {
		if content == nil || !d.Sum.matches(*content) {
			return core.Note{}, errTorn
		}
		d.Content = *content
	}
	targets = targets[1:]
	n := core.Note{
		Project: project,
		ID:      str(id),
		Title:   d.Title,
		Path:    d.Path,
		Content: d.Content,
		Tags:    d.Tags,
		Hash:    d.Hash,
		Size:    d.Size,
		ModTime: d.ModTime,
		Entity:  d.Entity,
	}
	if len(d.Frontmatter) > 0 {
		var err error
		if n.Frontmatter, err = core.DecodeFrontmatter(d.Frontmatter); err != nil {
			return core.Note{}, fmt.Errorf("decode frontmatter of %s: %w", n.ID, err)
		}
	}
	if len(d.Links) > 0 {
		n.Links = make([]core.Link, len(d.Links))
		for i, r := range d.Links {
			n.Links[i] = core.Link{Raw: r.Raw, Key: r.Key, Target: targets[i], Alias: r.Alias, Heading: r.Heading, Embed: r.Embed}
		}
	}
	return n, nil
}

// contentSum identifies a note's content (see noteDoc): its length in
// bytes and its CRC-32C (Castagnoli, computed in hardware on amd64 and
// arm64: about 0.1 ms for a 300 KB note).
type contentSum struct {
	Len int    `json:"n"`
	CRC uint32 `json:"crc"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func sumOf(content string) *contentSum {
	return &contentSum{Len: len(content), CRC: crc32.Checksum([]byte(content), castagnoli)}
}

func (c *contentSum) matches(content string) bool {
	return c.Len == len(content) && c.CRC == crc32.Checksum([]byte(content), castagnoli)
}

// docAndContent splits a doc column: [doc, content] as the statements that
// read whole notes return it (content nil when the note has none), or a
// lone doc or head string (a head, or a test's doc); content is then nil.
func docAndContent(v any) (doc string, content *string) {
	list, ok := v.([]any)
	if !ok {
		return str(v), nil
	}
	if len(list) > 0 {
		doc = str(list[0])
	}
	if len(list) > 1 {
		if c, ok := list[1].(string); ok {
			content = &c
		}
	}
	return doc, content
}

// str returns v as a string; a missing property (nil) is "".
func str(v any) string {
	s, _ := v.(string)
	return s
}

// strs returns a list property as strings; nil when missing or empty.
func strs(v any) []string {
	list, _ := v.([]any)
	if len(list) == 0 {
		return nil
	}
	out := make([]string, len(list))
	for i, e := range list {
		out[i] = str(e)
	}
	return out
}

// float32s converts a vector property as the driver returns it (a list of
// float64); an empty list (or none) gives an empty vector.
func float32s(v any) []float32 {
	list, _ := v.([]any)
	out := make([]float32, len(list))
	for i, e := range list {
		f, _ := e.(float64)
		out[i] = float32(f)
	}
	return out
}

// num returns an integer value as int64; the driver hands back int64.
func num(v any) int64 {
	i, _ := v.(int64)
	return i
}
