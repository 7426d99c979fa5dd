// Package resources offers the vault through MCP's other primitives than
// tools: every note as a resource (listed with paging, read as the
// markdown on disk, addressed by a URI template), prompts that put the
// graph to use in one click, and completion of note IDs and tags for the
// template and the prompts' arguments. Like the toolsets it knows core and
// mcp-go only; cmd gives it the store and the vault's files.
//
// URIs are vault://note/<ID>, the ID being the note's graph ID (the
// lower-cased vault-relative path, "concepts/bm25.md") with each path
// segment percent-escaped ("vault://note/daily/2024-03-04.md",
// "vault://note/my%20notes/idea.md"). The template vault://note/{+id}
// accepts the same ID forms as the tools: any letter case, with or without
// ".md". Attachments (images, PDFs) are vault://file/<path>, the path as on
// disk with each segment percent-escaped, read as base64 blobs.
package resources

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
)

// URI scheme and template of a note.
const (
	URIPrefix   = "vault://note/"
	URITemplate = "vault://note/{+id}"
	// MIMEType is every note's.
	MIMEType = "text/markdown"
	// DefaultPageSize is how many notes one resources/list page holds.
	DefaultPageSize = 100
)

// Store is what the resources read of the graph store.
type Store interface {
	NoteHashes(ctx context.Context, project string) (map[string]string, error)
	GetNote(ctx context.Context, project, id string) (*core.Note, error)
	GetNotes(ctx context.Context, project string, ids []string) ([]core.Note, error)
	Neighbors(ctx context.Context, project, id string, dir core.Direction, limit int) ([]core.Neighbor, error)
	ResolveTitles(ctx context.Context, project string, ids []string) (map[string]string, error)
	core.NoteStateReader
}

// Files reads a note's file as it is on disk (the vault's writer): its
// bytes and their hash, core.ErrNotFound when it is gone.
type Files interface {
	ReadFile(rel string) ([]byte, string, error)
}

// Deps are what the resources need; cmd builds them once.
type Deps struct {
	Project string
	Store   Store
	Files   Files
	Logger  *slog.Logger
	// PageSize is the notes of one resources/list page; 0 means
	// DefaultPageSize.
	PageSize int
	// Changes, when set, is what the vault mirror writes through
	// (Changes.Store): subscriptions and list changes are then offered.
	Changes *Changes
	// Attachments, when set, offers the vault's images and PDFs as blob
	// resources after the notes.
	Attachments Attachments
}

// pageSize is the resources of one resources/list page.
func (d Deps) pageSize() int {
	if d.PageSize <= 0 {
		return DefaultPageSize
	}
	return d.PageSize
}

// Live reports whether subscriptions and list changes are offered.
func (d Deps) Live() bool { return d.Changes != nil }

// Attach lets Changes notify srv's sessions (server.New calls it).
func (d Deps) Attach(srv *server.MCPServer, hooks *server.Hooks) {
	if d.Changes != nil {
		d.Changes.Attach(srv, hooks)
	}
}

// MaxSubscriptions is the notes one session, or one subscriptions/listen
// stream, may follow (server's gate refuses more).
func (d Deps) MaxSubscriptions() int {
	if d.Changes == nil {
		return DefaultMaxSubscriptions
	}
	return d.Changes.MaxSubscriptions()
}

// MaxURIBytes bounds a resource URI (server.MaxResourceURIBytes refuses
// longer ones before they get here).
const MaxURIBytes = 8 << 10

// CheckSubscribe vets a resources/subscribe of session before it is kept
// (server.New asks through a hook, before mcp-go handles it): the URI must
// name a note that exists (in any ID form), and the session hold fewer
// than Changes.MaxSubscriptions others. The error says what to do.
func (d Deps) CheckSubscribe(ctx context.Context, session, uri string) error {
	if d.Changes == nil {
		return nil // no subscriptions offered: mcp-go refuses them
	}
	if len(uri) > MaxURIBytes {
		return fmt.Errorf("the URI is %d bytes, over the limit of %d: subscribe to a note's URI, %s<note ID>", len(uri), MaxURIBytes, URIPrefix)
	}
	id := idOf(uri)
	if id == "" {
		return fmt.Errorf("%s is not a note's URI: subscribe to %s<note ID> of a note that exists (resources/list names them)", quoteShort(uri), URIPrefix)
	}
	if _, err := d.find(ctx, id); errors.Is(err, ErrNoteNotFound) {
		return fmt.Errorf("no note has the URI %s: subscribe to a note that exists (resources/list names them); a note created later can be subscribed to then", quoteShort(uri))
	} else if err != nil {
		d.logger().WarnContext(ctx, "resources/subscribe: the store failed", "err", err)
		return errors.New("the vault failed to answer; try again later")
	}
	if !d.Changes.room(session, canonical(uri)) {
		return fmt.Errorf("this session holds %d subscriptions, the limit (resources.max_subscriptions): unsubscribe (resources/unsubscribe) from notes you no longer follow, then subscribe again", d.Changes.MaxSubscriptions())
	}
	return nil
}

// quoteShort quotes s, cut to 200 bytes: an error names a URI without
// echoing kilobytes of it.
func quoteShort(s string) string {
	if len(s) > 200 {
		return strconv.Quote(s[:200]) + "…"
	}
	return strconv.Quote(s)
}

func (d Deps) logger() *slog.Logger {
	if d.Logger == nil {
		return slog.Default()
	}
	return d.Logger
}

// URI is the resource URI of the note with this ID.
func URI(id string) string { return pathURI(URIPrefix, id) }

// idOf returns the note ID a URI names ("" when it is not a note URI).
func idOf(uri string) string { return uriPath(URIPrefix, uri) }

// pathURI is prefix followed by the vault path p, each of its segments
// escaped.
func pathURI(prefix, p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return prefix + strings.Join(segs, "/")
}

// uriPath returns the vault path a URI of pathURI(prefix, …) names, ""
// when it has another prefix, no path or a bad escape.
func uriPath(prefix, uri string) string {
	rest, ok := strings.CutPrefix(uri, prefix)
	if !ok || rest == "" {
		return ""
	}
	p, err := url.PathUnescape(rest)
	if err != nil {
		return ""
	}
	return p
}

// sortedIDs returns every note ID of the project in byte order.
func (d Deps) sortedIDs(ctx context.Context) ([]string, error) {
	hashes, err := d.Store.NoteHashes(ctx, d.Project)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(hashes))
	for id := range hashes {
		if core.KindOf(id) == core.KindNote { // attachments are vault://file/ resources, canvases not offered
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// List returns one page of notes as resources, in ID order, after the
// cursor ("" for the first page), and the cursor of the next page ("" at
// the end). The cursor is the last ID of the page in base64 (mcp-go's own
// cursor form, which it checks before vaultgraph sees the request): a note
// added or removed between two pages moves no other note to another page.
// The attachments, when offered, follow the notes in pages of their own
// (path order; their cursors start with a NUL byte).
func (d Deps) List(ctx context.Context, cursor string) ([]mcp.Resource, string, error) {
	after := ""
	if cursor != "" {
		c, err := base64.StdEncoding.DecodeString(cursor)
		if err != nil {
			return nil, "", fmt.Errorf("resources: invalid cursor %q", cursor)
		}
		after = string(c)
	}
	if rest, ok := strings.CutPrefix(after, attachmentMark); ok {
		if d.Attachments == nil {
			return []mcp.Resource{}, "", nil
		}
		return d.listAttachments(ctx, rest)
	}
	ids, err := d.sortedIDs(ctx)
	if err != nil {
		return nil, "", err
	}
	start, _ := slices.BinarySearch(ids, after)
	if after != "" && start < len(ids) && ids[start] == after {
		start++
	}
	end := min(start+d.pageSize(), len(ids))
	page := ids[start:end]
	if len(page) == 0 && d.Attachments != nil {
		return d.listAttachments(ctx, "")
	}
	notes, err := d.Store.GetNotes(ctx, d.Project, page)
	if err != nil {
		return nil, "", err
	}
	out := make([]mcp.Resource, 0, len(notes))
	for _, n := range notes {
		out = append(out, resourceOf(&n))
	}
	next := ""
	switch {
	case end < len(ids):
		next = base64.StdEncoding.EncodeToString([]byte(ids[end-1]))
	case d.hasAttachments(ctx):
		next = base64.StdEncoding.EncodeToString([]byte(attachmentMark))
	}
	return out, next, nil
}

// resourceOf describes a note: its title as name and title, its size and
// last modification.
func resourceOf(n *core.Note) mcp.Resource {
	r := mcp.Resource{
		URI:         URI(n.ID),
		Name:        n.Title,
		Title:       n.Title,
		Description: n.Path,
		MIMEType:    MIMEType,
	}
	if n.Size >= 0 {
		size := n.Size
		r.Size = &size
	}
	if !n.ModTime.IsZero() {
		r.Annotations = &mcp.Annotations{LastModified: n.ModTime.UTC().Format(time.RFC3339)}
	}
	return r
}

// ErrNoteNotFound answers a read of a URI that names no note.
var ErrNoteNotFound = errors.New("resources: no note has this URI")

// find returns the note an ID names in any of the forms the tools accept.
func (d Deps) find(ctx context.Context, id string) (*core.Note, error) {
	for _, c := range core.IDCandidates(id) {
		if core.KindOf(c) != core.KindNote {
			continue // a node of the graph, not a note: see vault://file/
		}
		n, err := d.Store.GetNote(ctx, d.Project, c)
		if errors.Is(err, core.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n != nil {
			return n, nil
		}
	}
	return nil, fmt.Errorf("%w: %q", ErrNoteNotFound, id)
}

// Read returns the note a URI names, as its file is on disk.
func (d Deps) Read(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
	id := idOf(uri)
	if id == "" {
		return nil, fmt.Errorf("%w: %q (want %s<note ID>)", ErrNoteNotFound, uri, URIPrefix)
	}
	n, err := d.find(ctx, id)
	if err != nil {
		return nil, err
	}
	raw, _, err := d.Files.ReadFile(n.Path)
	if errors.Is(err, core.ErrNotFound) {
		return nil, fmt.Errorf("%w: %q", ErrNoteNotFound, id)
	}
	if err != nil {
		d.logger().WarnContext(ctx, "resource read failed", "note_id", n.ID, "err", err)
		return nil, errors.New("resources: the vault failed to answer; try again later")
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: URI(n.ID), MIMEType: MIMEType, Text: string(raw)}}, nil
}

// Templates are the resource templates offered: every note's, and every
// attachment's when attachments are offered.
func (d Deps) Templates() []server.ServerResourceTemplate {
	out := []server.ServerResourceTemplate{d.Template()}
	if d.Attachments != nil {
		out = append(out, d.FileTemplate())
	}
	return out
}

// Template is the resource template of every note, with its handler.
func (d Deps) Template() server.ServerResourceTemplate {
	return server.ServerResourceTemplate{
		Template: mcp.NewResourceTemplate(URITemplate, "note",
			mcp.WithTemplateTitle("A note of the vault"),
			mcp.WithTemplateDescription("A note's markdown as it is on disk, frontmatter included. id is the note's ID as the tools give it (e.g. concepts/bm25.md), in any letter case, with or without .md."),
			mcp.WithTemplateMIMEType(MIMEType)),
		Handler: func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return d.Read(ctx, req.Params.URI)
		},
	}
}
