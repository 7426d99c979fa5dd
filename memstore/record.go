package memstore

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/vaultgraph/vaultgraph/core"
)

// Notes on disk. Each project has two kv buckets:
//
//	notes:<project>   ID -> note record: everything the store keeps in memory
//	                  (title, path, hash, size, mtime, tags, links with their
//	                  current targets, entity)
//	bodies:<project>  ID -> body record: content and frontmatter, which stay on
//	                  disk and are read by the calls that return them
//
// Records are a version byte and length-prefixed fields (varints), not
// JSON: a store of 100k notes decodes its note records at every start, and
// JSON took several times longer. A note record is decoded into one
// allocation (recordArena): its strings are windows into a private copy of
// the record.
//
// Two more buckets keep the keyword index's term vectors (keywords.go):
//
//	kwdocs:<project>   ID -> uvarint length, then the note's term vector
//	kwterms:<project>  term number (4 bytes, big-endian) -> term
const (
	notesBucketPrefix  = "notes:"
	bodiesBucketPrefix = "bodies:"
	kwDocsPrefix       = "kwdocs:"
	kwTermsPrefix      = "kwterms:"
	recordVersion      = 1
)

func notesBucket(project string) string   { return notesBucketPrefix + project }
func bodiesBucket(project string) string  { return bodiesBucketPrefix + project }
func kwDocsBucket(project string) string  { return kwDocsPrefix + project }
func kwTermsBucket(project string) string { return kwTermsPrefix + project }

var errBadRecord = errors.New("damaged record")

// appendString appends a length-prefixed string.
func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// encodeNote appends n's note record (see above) to b.
func encodeNote(b []byte, n *core.Note) ([]byte, error) {
	b = append(b, recordVersion)
	b = appendString(b, n.Title)
	b = appendString(b, n.Path)
	b = appendString(b, n.Hash)
	b = binary.AppendVarint(b, n.Size)
	if n.ModTime.IsZero() {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.AppendVarint(b, n.ModTime.UnixNano())
	}
	b = binary.AppendUvarint(b, uint64(len(n.Tags)))
	for _, t := range n.Tags {
		b = appendString(b, t)
	}
	b = binary.AppendUvarint(b, uint64(len(n.Links)))
	for _, l := range n.Links {
		b = appendString(b, l.Raw)
		b = appendString(b, l.Key)
		b = appendString(b, l.Target)
		b = appendString(b, l.Alias)
		b = appendString(b, l.Heading)
		if l.Embed {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	var entity []byte
	if n.Entity != nil {
		var err error
		if entity, err = json.Marshal(n.Entity); err != nil {
			return nil, fmt.Errorf("encode entity of %s: %w", n.ID, err)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(entity)))
	return append(b, entity...), nil
}

// recordReader reads the fields of a record whose bytes it owns: strings
// are windows into them (never copied, never changed).
type recordReader struct {
	b   []byte
	err error
}

func (r *recordReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *recordReader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *recordReader) string() string {
	b := r.bytes()
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// skipToLinks passes a note record's fields before its links (after the
// version byte): title, path, hash, size, mtime and tags; the link count
// comes next. Rewrites of links (retargetRecord, recordNames) read only
// from there on.
func (r *recordReader) skipToLinks() {
	r.bytes()  // title
	r.bytes()  // path
	r.bytes()  // hash
	r.varint() // size
	if r.byte() == 1 {
		r.varint() // mtime
	}
	for range r.count() {
		r.bytes() // tags
	}
}

// count reads a list length, refusing one the record cannot hold (each
// item takes at least a byte), so a damaged record never allocates wildly.
func (r *recordReader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return 0
	}
	return int(n)
}

func (r *recordReader) fail() {
	if r.err == nil {
		r.err = errBadRecord
	}
	r.b = nil
}

// decodeNote decodes the note record rec of note id, copying both into one
// new allocation that the note's strings share.
func decodeNote(project, id string, rec []byte) (core.Note, error) {
	arena := make([]byte, 0, len(id)+len(rec))
	arena = append(append(arena, id...), rec...)
	r := recordReader{b: arena[len(id):]}
	n := core.Note{Project: project, ID: unsafe.String(unsafe.SliceData(arena), len(id))}
	if v := r.byte(); v != recordVersion {
		return core.Note{}, fmt.Errorf("note %s: record version %d: %w", id, v, errBadRecord)
	}
	n.Title = r.string()
	n.Path = r.string()
	n.Hash = r.string()
	n.Size = r.varint()
	if r.byte() == 1 {
		n.ModTime = time.Unix(0, r.varint())
	}
	if c := r.count(); c > 0 {
		n.Tags = make([]string, c)
		for i := range n.Tags {
			n.Tags[i] = r.string()
		}
	} else {
		n.Tags = []string{}
	}
	if c := r.count(); c > 0 {
		n.Links = make([]core.Link, c)
		for i := range n.Links {
			l := &n.Links[i]
			l.Raw, l.Key, l.Target, l.Alias, l.Heading = r.string(), r.string(), r.string(), r.string(), r.string()
			l.Embed = r.byte() == 1
		}
	}
	if entity := r.bytes(); len(entity) > 0 && r.err == nil {
		n.Entity = new(core.NoteEntity)
		if err := json.Unmarshal(entity, n.Entity); err != nil {
			return core.Note{}, fmt.Errorf("note %s: entity: %w", id, err)
		}
	}
	if r.err != nil {
		return core.Note{}, fmt.Errorf("note %s: %w", id, r.err)
	}
	return n, nil
}

// encodeBody appends n's body record to b.
func encodeBody(b []byte, n *core.Note) ([]byte, error) {
	b = append(b, recordVersion)
	b = appendString(b, n.Content)
	var fm []byte
	if len(n.Frontmatter) > 0 {
		var err error
		if fm, err = json.Marshal(jsonSafe(n.Frontmatter)); err != nil {
			return nil, fmt.Errorf("encode frontmatter of %s: %w", n.ID, err)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(fm)))
	return append(b, fm...), nil
}

// body is what a body record holds.
type body struct {
	content     string
	frontmatter map[string]any
}

// decodeBody decodes a body record (valid only during its transaction:
// everything is copied). With cut, the content is cut to what a view of a
// neighbour needs (core.ContextContentChars+1 characters) before it is
// copied; with withFrontmatter, the frontmatter is decoded too.
func decodeBody(id string, rec []byte, cut, withFrontmatter bool) (body, error) {
	r := recordReader{b: rec}
	if v := r.byte(); v != recordVersion {
		return body{}, fmt.Errorf("body of %s: record version %d: %w", id, v, errBadRecord)
	}
	content := r.bytes()
	fm := r.bytes()
	if r.err != nil {
		return body{}, fmt.Errorf("body of %s: %w", id, r.err)
	}
	if cut {
		content = contentHead(content)
	}
	out := body{content: string(content)}
	if withFrontmatter && len(fm) > 0 {
		var err error
		if out.frontmatter, err = core.DecodeFrontmatter(fm); err != nil {
			return body{}, fmt.Errorf("frontmatter of %s: %w", id, err)
		}
	}
	return out, nil
}

// bodyHeadBytes is how much of a body record decodeBodyHead needs: the
// version byte, the content's length (a uvarint, at most 10 bytes) and
// contentHead's characters, each at most 4 bytes (utf8.UTFMax; an invalid
// byte counts as one character).
const bodyHeadBytes = 1 + binary.MaxVarintLen64 + (core.ContextContentChars+1)*utf8.UTFMax

// decodeBodyHead is decodeBody with the content cut to its head and no
// frontmatter, from the record's first bodyHeadBytes at least (all of a
// shorter record): what a view of a neighbour shows. The record's end is
// not read, so a record cut short after its head is not noticed here.
func decodeBodyHead(id string, rec []byte) (body, error) {
	r := recordReader{b: rec}
	if v := r.byte(); v != recordVersion {
		return body{}, fmt.Errorf("body of %s: record version %d: %w", id, v, errBadRecord)
	}
	n := r.uvarint()
	if r.err != nil {
		return body{}, fmt.Errorf("body of %s: %w", id, r.err)
	}
	content := r.b
	if n < uint64(len(content)) {
		content = content[:n]
	} else if n > uint64(len(content)) && len(rec) < bodyHeadBytes {
		// The whole record was read, and its content is not all there.
		return body{}, fmt.Errorf("body of %s: %w", id, errBadRecord)
	}
	return body{content: string(contentHead(content))}, nil
}

// contentHead cuts content to its first core.ContextContentChars+1
// characters (as core.TruncateContent counts them): enough for any
// truncation a view of a neighbour makes.
func contentHead(content []byte) []byte { return firstChars(content, core.ContextContentChars+1) }

// firstChars cuts b to its first n characters as core.TruncateContent
// counts them (whole runes; an invalid byte counts as one). It steps over
// the bytes themselves: ranging over string(b) copied the whole record's
// content first (the compiler keeps only 32 bytes on the stack), which
// was most of what a get_node depth=1 call allocated.
func firstChars(b []byte, n int) []byte {
	count := 0
	for i := 0; i < len(b); count++ {
		if count == n {
			return b[:i]
		}
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return b
}

// jsonSafe returns v with every map[any]any (which YAML gives for non-string
// keys and encoding/json refuses) turned into a map[string]any.
func jsonSafe(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonSafe(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = jsonSafe(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonSafe(e)
		}
		return out
	default:
		return v
	}
}

// decodeState decodes from nd's note record rec what core.NoteState holds
// beyond memory's ID, path and hash, the links' raw text copied into a;
// the links' keys and targets are memory's (the vault's index keeps them:
// shared with the graph, they cost it nothing), and Alias and Heading are
// left empty.
func (nd *node) decodeState(a *arena, rec []byte) (core.NoteState, error) {
	st := core.NoteState{ID: nd.ID, Path: nd.Path, Hash: nd.Hash}
	if rec == nil { // no record (never written by this version): unknown, so the file is read
		st.Size = -1
		return st, nil
	}
	r := recordReader{b: rec}
	if v := r.byte(); v != recordVersion {
		return st, fmt.Errorf("note %s: record version %d: %w", nd.ID, v, errBadRecord)
	}
	r.bytes() // title
	r.bytes() // path
	r.bytes() // hash
	st.Size = r.varint()
	if r.byte() == 1 {
		st.ModTime = time.Unix(0, r.varint())
	}
	for range r.count() {
		r.bytes() // tags
	}
	if c := r.count(); c > 0 {
		if c != len(nd.links) {
			return st, fmt.Errorf("note %s: %d links on disk, %d in memory: %w", nd.ID, c, len(nd.links), errBadRecord)
		}
		st.Links = make([]core.Link, c)
		for i := range st.Links {
			l := &st.Links[i]
			l.Raw = a.str(r.bytes())
			r.bytes() // the key: memory's, the same string, is shared
			r.bytes() // the target when written: memory's is current
			// Alias and heading may be left empty (core.NoteState): no
			// copy of them for the caller to keep alive for nothing.
			r.bytes()
			r.bytes()
			l.Embed = r.byte() == 1
			l.Key = nd.links[i].key
			if t := nd.links[i].target; t != nil {
				l.Target = t.ID
			}
		}
	}
	if r.err != nil {
		return st, fmt.Errorf("note %s: %w", nd.ID, r.err)
	}
	return st, nil
}
