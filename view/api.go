package view

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

type readOnlyKey struct{}

func contextWithReadOnly(ctx context.Context, readOnly bool) context.Context {
	return context.WithValue(ctx, readOnlyKey{}, readOnly)
}

func readOnlyFrom(ctx context.Context) bool {
	ro, _ := ctx.Value(readOnlyKey{}).(bool)
	return ro
}

// linkJSON is a note named in an answer.
type linkJSON struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// noteAnswer is a note for the focus panel.
type noteAnswer struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Path    string   `json:"path"`
	Tags    []string `json:"tags"`
	HTML    string   `json:"html"`
	Content string   `json:"content,omitempty"` // the markdown, for a session that may edit it
	// Version is the note's version (the hash of its file, Note.Hash), for
	// a session that may edit it: a save sends it back, and is refused
	// (409) when the file changed since.
	Version   string     `json:"version,omitempty"`
	Links     []linkJSON `json:"links"`
	Ghosts    []string   `json:"ghosts"`
	Backlinks []linkJSON `json:"backlinks"`
	In        int        `json:"in"`
	Out       int        `json:"out"`
	ReadOnly  bool       `json:"readOnly"`
	// LastChange is the note's newest change in the change log, with who
	// made it; absent when none is among the newest lastChangeScan.
	LastChange *changeJSON `json:"lastChange,omitempty"`
}

// findNote reads the note a page names, in any ID form the tools accept
// (core.IDCandidates), in one GetNotes call; nil when there is none.
func (v *View) findNote(ctx context.Context, id string) (*core.Note, error) {
	if strings.TrimSpace(id) == "" {
		return nil, core.InvalidArgument("id must name a note")
	}
	notes, err := v.opts.Store.GetNotes(ctx, v.opts.Project, core.IDCandidates(id))
	if err != nil || len(notes) == 0 {
		return nil, err
	}
	return &notes[0], nil
}

// serveNote answers a note: rendered, with its links, ghosts and
// backlinks (NoteContext: its in-neighbours with their titles).
func (v *View) serveNote(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	note, err := v.findNote(ctx, r.URL.Query().Get("id"))
	if err != nil {
		v.fail(w, "read a note", err)
		return
	}
	if note == nil {
		writeError(w, http.StatusNotFound, "no note has this ID (it may have been renamed or deleted)")
		return
	}
	nc, err := v.opts.Store.NoteContext(ctx, v.opts.Project, note.ID, core.ContextQuery{Direction: core.DirectionIn})
	if errors.Is(err, core.ErrNotFound) {
		writeError(w, http.StatusNotFound, "no note has this ID (it was deleted just now)")
		return
	}
	if err != nil {
		v.fail(w, "read a note's backlinks", err)
		return
	}
	html, err := renderNote(note)
	if err != nil {
		v.fail(w, "render a note", err)
		return
	}
	ro := readOnlyFrom(ctx)
	a := noteAnswer{ID: note.ID, Title: note.Title, Path: note.Path, Tags: note.Tags, HTML: html,
		Links: []linkJSON{}, Ghosts: []string{}, Backlinks: []linkJSON{}, In: nc.Degree.In, Out: nc.Degree.Out, ReadOnly: ro}
	if a.Tags == nil {
		a.Tags = []string{}
	}
	if !ro {
		a.Content, a.Version = note.Content, note.Hash
	}
	for _, l := range nc.Note.Links {
		a.Links = append(a.Links, linkJSON{ID: l.ID, Title: l.Title})
	}
	for _, l := range note.Links {
		if l.Target == "" && l.Key != "" && !slices.Contains(a.Ghosts, l.Key) {
			a.Ghosts = append(a.Ghosts, l.Key)
		}
	}
	for _, n := range nc.Neighbors {
		a.Backlinks = append(a.Backlinks, linkJSON{ID: n.ID, Title: n.Title})
	}
	a.LastChange = v.lastChange(ctx, note.ID)
	writeJSON(w, r, http.StatusOK, a)
}

// Neighbourhood bounds: a hub can have thousands of neighbours, and a
// page draws a few hundred legibly.
const (
	aroundLimit  = 200 // neighbours read of the focused note
	expandLimit  = 60  // depth-1 neighbours whose own neighbours are read at depth 2
	expandEach   = 40  // neighbours read of each of those
	aroundReads  = 4   // NoteContext calls at once (Neo4j: round trips in flight)
	maxAroundIDs = 1000
)

// aroundNode is a note of a neighbourhood.
type aroundNode struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	Depth  int      `json:"depth"`
	Folder string   `json:"folder"`
	Tags   []string `json:"tags"`
}

// aroundAnswer is a note's neighbourhood: the notes within depth links
// (either direction) and the links among them as index pairs (source,
// target).
type aroundAnswer struct {
	Center    string       `json:"center"`
	Depth     int          `json:"depth"`
	Nodes     []aroundNode `json:"nodes"`
	Edges     []int        `json:"edges"`
	Truncated bool         `json:"truncated"` // some neighbours were left out (see the limits)
	In        int          `json:"in"`
	Out       int          `json:"out"`
}

// serveAround answers a note's neighbourhood at depth 1 or 2, read with
// NoteContext (get_node's and get_neighbors' store call): the note's
// neighbours, then, at depth 2, each neighbour's.
func (v *View) serveAround(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	depth := 1
	if s := r.URL.Query().Get("depth"); s != "" {
		d, err := strconv.Atoi(s)
		if err != nil || d < 1 || d > 2 {
			writeError(w, http.StatusBadRequest, "depth must be 1 or 2")
			return
		}
		depth = d
	}
	note, err := v.findNote(ctx, r.URL.Query().Get("id"))
	if err != nil {
		v.fail(w, "read a note", err)
		return
	}
	if note == nil {
		writeError(w, http.StatusNotFound, "no note has this ID (it may have been renamed or deleted)")
		return
	}
	a, err := v.around(ctx, note.ID, note.Title, depth)
	if errors.Is(err, core.ErrNotFound) {
		writeError(w, http.StatusNotFound, "no note has this ID (it was deleted just now)")
		return
	}
	if err != nil {
		v.fail(w, "read a neighbourhood", err)
		return
	}
	writeJSON(w, r, http.StatusOK, a)
}

// around reads the neighbourhood of id.
func (v *View) around(ctx context.Context, id, title string, depth int) (*aroundAnswer, error) {
	a := &aroundAnswer{Center: id, Depth: depth, Nodes: []aroundNode{}, Edges: []int{}}
	index := map[string]int{}
	edges := map[[2]int]bool{}
	add := func(id, title string, d int) int {
		if i, ok := index[id]; ok {
			return i
		}
		index[id] = len(a.Nodes)
		a.Nodes = append(a.Nodes, v.aroundNode(id, title, d))
		return len(a.Nodes) - 1
	}
	link := func(from int, nb core.NeighborView) {
		to := add(nb.ID, nb.Title, a.Nodes[from].Depth+1)
		e := [2]int{from, to}
		if nb.Direction == core.DirectionIn {
			e = [2]int{to, from}
		}
		if !edges[e] {
			edges[e] = true
			a.Edges = append(a.Edges, e[0], e[1])
		}
	}
	center := add(id, title, 0)
	nc, err := v.opts.Store.NoteContext(ctx, v.opts.Project, id, core.ContextQuery{SkipNote: true, Direction: core.DirectionBoth, Limit: aroundLimit})
	if err != nil {
		return nil, err
	}
	a.In, a.Out = nc.Degree.In, nc.Degree.Out
	a.Truncated = len(nc.Neighbors) >= aroundLimit
	for _, nb := range nc.Neighbors {
		link(center, nb)
	}
	if depth == 1 {
		return a, nil
	}
	first := nc.Neighbors
	if len(first) > expandLimit {
		first, a.Truncated = first[:expandLimit], true
	}
	results := make([]*core.NoteContext, len(first))
	errs := make([]error, len(first))
	var wg sync.WaitGroup
	sem := make(chan struct{}, aroundReads)
	for i, nb := range first {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i], errs[i] = v.opts.Store.NoteContext(ctx, v.opts.Project, nb.ID, core.ContextQuery{SkipNote: true, Direction: core.DirectionBoth, Limit: expandEach})
		})
	}
	wg.Wait()
	for i, nb := range first {
		if errors.Is(errs[i], core.ErrNotFound) {
			continue // deleted meanwhile
		}
		if errs[i] != nil {
			return nil, errs[i]
		}
		from := index[nb.ID]
		if len(results[i].Neighbors) >= expandEach {
			a.Truncated = true
		}
		for _, nb2 := range results[i].Neighbors {
			if len(a.Nodes) >= maxAroundIDs {
				if _, ok := index[nb2.ID]; !ok {
					a.Truncated = true
					continue
				}
			}
			link(from, nb2)
		}
	}
	return a, nil
}

// aroundNode describes a neighbour with its folder and tags as the
// overview holds them (for its colour).
func (v *View) aroundNode(id, title string, depth int) aroundNode {
	n := aroundNode{ID: id, Title: title, Depth: depth, Tags: []string{}}
	v.mu.RLock()
	if nd := v.nodes[id]; nd != nil {
		n.Folder = topFolder(nd.Path)
		if nd.Tags != nil {
			n.Tags = nd.Tags
		}
	}
	v.mu.RUnlock()
	return n
}

// searchHit is one search result.
type searchHit struct {
	ID      string  `json:"id"`
	Title   string  `json:"title"`
	Score   float64 `json:"score"`
	Snippet string  `json:"snippet,omitempty"`
}

// searchLimit bounds results (the search tool's limit).
const searchLimit = core.MaxSearchLimit

// serveSearch answers the search box: the search tool's service
// (GraphService.Search: semantic, hybrid with keywords) when an embedder
// is configured, else the store's keyword relevance alone.
func (v *View) serveSearch(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	limit := 20
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > searchLimit {
			writeError(w, http.StatusBadRequest, "limit must be between 1 and "+strconv.Itoa(searchLimit))
			return
		}
		limit = n
	}
	out := struct {
		Mode    string      `json:"mode"`
		Results []searchHit `json:"results"`
	}{Mode: "semantic", Results: []searchHit{}}
	if q == "" {
		writeJSON(w, r, http.StatusOK, out)
		return
	}
	if v.opts.Graph.HasSearch() {
		hits, err := v.opts.Graph.Search(ctx, q, limit)
		if err != nil {
			v.fail(w, "search", err)
			return
		}
		for _, h := range hits {
			out.Results = append(out.Results, searchHit{ID: h.ID, Title: h.Title, Score: h.Score, Snippet: core.TruncateContent(h.Content, 160)})
		}
		writeJSON(w, r, http.StatusOK, out)
		return
	}
	out.Mode = "keyword"
	hits, err := v.opts.Store.KeywordSearch(ctx, v.opts.Project, q, limit)
	if err != nil {
		v.fail(w, "search", err)
		return
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	titles, err := v.opts.Store.ResolveTitles(ctx, v.opts.Project, ids)
	if err != nil {
		v.fail(w, "search", err)
		return
	}
	for _, h := range hits {
		if t, ok := titles[h.ID]; ok {
			out.Results = append(out.Results, searchHit{ID: h.ID, Title: t, Score: h.Score})
		}
	}
	writeJSON(w, r, http.StatusOK, out)
}

// servePath answers find_path between two notes (GraphService.FindPath:
// the tool's service), with titles.
func (v *View) servePath(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	from, to := r.URL.Query().Get("from"), r.URL.Query().Get("to")
	path, err := v.opts.Graph.FindPath(ctx, from, to)
	if err != nil {
		v.fail(w, "find a path", err)
		return
	}
	out := struct {
		Path []linkJSON `json:"path"`
	}{Path: []linkJSON{}}
	if len(path) > 0 {
		titles, err := v.opts.Store.ResolveTitles(ctx, v.opts.Project, path)
		if err != nil {
			v.fail(w, "find a path", err)
			return
		}
		for _, id := range path {
			out.Path = append(out.Path, linkJSON{ID: id, Title: titles[id]})
		}
	}
	writeJSON(w, r, http.StatusOK, out)
}

// saveNote replaces a note's content (update_node's service, which
// writes the file first, then the store); the change reaches every open
// page through the feed like any other edit. The save names the version
// the page loaded (api/note's "version") and is written only if the file
// still has it, in one step with the write (core.NoteUpdate.ExpectedHash):
// an edit made outside meanwhile (an editor, a tool, another page) is
// answered 409 with the note as it is now, never overwritten.
func (v *View) saveNote(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ID      string  `json:"id"`
		Content *string `json:"content"`
		Version string  `json:"version"`
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || in.Content == nil || in.Version == "" {
		writeError(w, http.StatusBadRequest, `send {"id": "...", "content": "...", "version": "..."} with the version api/note answered for the note`)
		return
	}
	ctx := core.WithActor(r.Context(), v.auth.actor(r))
	res, err := v.opts.Graph.Update(ctx, in.ID, core.NoteUpdate{Content: in.Content, ExpectedHash: in.Version})
	if errors.Is(err, core.ErrConflict) {
		v.conflict(w, r, in.ID)
		return
	}
	if err != nil {
		v.fail(w, "save a note", err)
		return
	}
	writeJSON(w, r, http.StatusOK, saveAnswer{ID: res.Node.ID, Version: v.versionOf(ctx, res.Node.ID)})
}

// saveAnswer answers a save: the note's ID and its new version, for the
// next save from the same page.
type saveAnswer struct {
	ID      string `json:"id"`
	Version string `json:"version,omitempty"`
}

// conflictAnswer answers a save refused because the note changed since
// the page loaded it: the note as it is now, for the page to show.
type conflictAnswer struct {
	Error   string `json:"error"`
	Content string `json:"content"`
	Version string `json:"version"`
}

// conflict answers 409 with the note as it is now (the writer brought the
// store up to date with the file before it refused).
func (v *View) conflict(w http.ResponseWriter, r *http.Request, id string) {
	a := conflictAnswer{Error: "the note changed meanwhile (outside this page): your text was not saved; compare it with the note as it is now, then reload or save again"}
	if note, err := v.findNote(r.Context(), id); err == nil && note != nil {
		a.Content, a.Version = note.Content, note.Hash
	}
	writeJSON(w, r, http.StatusConflict, a)
}

// versionOf returns the version of the note id as stored ("" when it
// cannot be read: the page then reloads the note before its next save).
func (v *View) versionOf(ctx context.Context, id string) string {
	note, err := v.findNote(ctx, id)
	if err != nil || note == nil {
		return ""
	}
	return note.Hash
}

// fail answers an error: the caller's mistakes with their message, a
// missing note as 404, anything else as 500 with the cause logged (never
// shown: it may carry a driver's text).
func (v *View) fail(w http.ResponseWriter, op string, err error) {
	var arg *core.ArgumentError
	switch {
	case errors.As(err, &arg):
		writeError(w, http.StatusBadRequest, arg.Msg)
	case errors.Is(err, core.ErrInvalidArgument):
		writeError(w, http.StatusBadRequest, "invalid request: "+op)
	case errors.Is(err, core.ErrNotFound):
		writeError(w, http.StatusNotFound, "no note has this ID (it may have been renamed or deleted)")
	case errors.Is(err, core.ErrConflict), errors.Is(err, core.ErrExists):
		writeError(w, http.StatusConflict, "the note changed meanwhile; reload it and try again")
	case errors.Is(err, context.Canceled):
		// the page went away
	default:
		v.log.Warn("view: "+op+" failed", "err", err)
		writeError(w, http.StatusInternalServerError, "could not "+op+"; the server's log says why")
	}
}

// changeJSON is a change of the change log, with who made it.
type changeJSON struct {
	At      string     `json:"at"` // RFC 3339, UTC
	Kind    string     `json:"kind"`
	ID      string     `json:"id"`
	Path    string     `json:"path"`
	OldPath string     `json:"oldPath,omitempty"`
	Title   string     `json:"title"`
	By      *actorJSON `json:"by,omitempty"` // absent when not recorded
}

// actorJSON is who made a change (core.Actor).
type actorJSON struct {
	ID    string `json:"id"`
	Email string `json:"email,omitempty"`
	Name  string `json:"name,omitempty"`
}

func changeOf(c core.NoteChange) changeJSON {
	out := changeJSON{At: c.At.UTC().Format(time.RFC3339), Kind: string(c.Kind), ID: c.ID, Path: c.Path, OldPath: c.OldPath, Title: c.Title}
	if c.Actor.ID != "" {
		out.By = &actorJSON{ID: c.Actor.ID, Email: c.Actor.Email, Name: c.Actor.Name}
	}
	return out
}

// Change panel bounds: the recent changes a page lists.
const (
	changesDefault = 30
	changesMax     = 100
)

// lastChange is id's newest logged change, however many other notes
// changed since (the store's per-note lookup); nil when there is none, or
// the log cannot be read (the note is shown without it, and the failure
// logged).
func (v *View) lastChange(ctx context.Context, id string) *changeJSON {
	if v.opts.Changes == nil {
		return nil
	}
	c, err := v.opts.Changes.LastChange(ctx, v.opts.Project, id)
	if err != nil {
		v.log.Warn("view: reading the change log failed; the note is shown without its last change", "err", err)
		return nil
	}
	if c == nil {
		return nil
	}
	out := changeOf(*c)
	return &out
}

// serveChanges answers the newest changes of the log (limit: 1 to 100,
// default 30), each with who made it.
func (v *View) serveChanges(w http.ResponseWriter, r *http.Request) {
	limit := changesDefault
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > changesMax {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("limit must be a number from 1 to %d", changesMax))
			return
		}
		limit = n
	}
	out := struct {
		Changes []changeJSON `json:"changes"`
	}{Changes: []changeJSON{}}
	if v.opts.Changes != nil {
		changes, err := v.opts.Changes.Changes(r.Context(), v.opts.Project, core.ChangeQuery{Limit: limit})
		if err != nil {
			v.fail(w, "read the change log", err)
			return
		}
		for _, c := range changes {
			out.Changes = append(out.Changes, changeOf(c))
		}
	}
	writeJSON(w, r, http.StatusOK, out)
}
