package view

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

const project = "test"

// waitLimit bounds every wait for an event (the machine may be loaded);
// the waits end at their event.
const waitLimit = time.Minute

func note(id, content string, tags []string, links ...string) core.Note {
	title := strings.TrimSuffix(id[strings.LastIndexByte(id, '/')+1:], ".md")
	n := core.Note{ID: id, Title: title, Path: id, Content: content, Tags: tags, Hash: "h-" + id + content}
	for _, l := range links {
		if strings.HasPrefix(l, "?") { // an unresolved link: a ghost
			n.Links = append(n.Links, core.Link{Raw: "[[" + l[1:] + "]]", Key: strings.ToLower(l[1:])})
			continue
		}
		target, alias, _ := strings.Cut(l, "|") // "x/c.md|the c" is written [[c|the c]]
		name := strings.TrimSuffix(target[strings.LastIndexByte(target, '/')+1:], ".md")
		raw := "[[" + name + "]]"
		if alias != "" {
			raw = "[[" + name + "|" + alias + "]]"
		}
		n.Links = append(n.Links, core.Link{Raw: raw, Key: name, Target: target, Alias: alias})
	}
	return n
}

// fixture: a links b and c and the ghost "nowhere"; b links c; d links a;
// c links e (two links from a); f is an orphan.
func fixture() []core.Note {
	return []core.Note{
		note("x/a.md", "A links [[b]] and [[c|the c]] and [[Nowhere]].\n\n<script>alert(1)</script> [bad](javascript:alert(1))", []string{"focus"}, "x/b.md", "y/c.md|the c", "?Nowhere"),
		note("x/b.md", "B links [[c]].", nil, "y/c.md"),
		note("y/c.md", "C links [[e]].", nil, "y/e.md"),
		note("y/d.md", "D links [[a]].", nil, "x/a.md"),
		note("y/e.md", "E.", nil),
		note("f.md", "F, alone.", nil),
	}
}

// contentWriter is the note writer of the tests: Update replaces a note's
// content in the store through the feed's store (as the vault mirror
// writes), the rest is not needed.
type contentWriter struct{ store core.GraphStore }

func (w contentWriter) Create(context.Context, core.NewNote) (*core.Note, error) {
	return nil, errors.New("not in these tests")
}

func (w contentWriter) Delete(context.Context, string) (bool, error) {
	return false, errors.New("not in these tests")
}

func (w contentWriter) Update(ctx context.Context, id string, u core.NoteUpdate) (*core.Note, *core.RenameReport, error) {
	n, err := w.store.GetNote(ctx, project, id)
	if err != nil {
		return nil, nil, err
	}
	if u.ExpectedHash != "" && u.ExpectedHash != n.Hash {
		return nil, nil, core.ErrConflict
	}
	if u.Content != nil {
		n.Content = *u.Content
		n.Hash += "'"
	}
	return n, nil, w.store.UpsertNotes(ctx, project, []core.Note{*n})
}

type env struct {
	store *memstore.Store
	feed  *Feed
	fed   core.GraphStore // writes through here reach the view
	view  *View
	srv   *httptest.Server
	// events is a subscription made before the view ran: it sees the
	// first layout's reload.
	events chan []byte
}

// newEnv runs a view of fixture() with auth, serving it on a loopback
// test server, until the test ends.
func newEnv(t *testing.T, auth AuthOptions, cache string) *env {
	t.Helper()
	st := memstore.New()
	if err := st.UpsertNotes(t.Context(), project, fixture()); err != nil {
		t.Fatal(err)
	}
	feed := NewFeed()
	fed := feed.Store(st)
	v, err := New(Options{Project: project, Store: st, Graph: core.NewGraphService(project, st, contentWriter{fed}),
		Feed: feed, Changes: st, CacheFile: cache, Auth: auth})
	if err != nil {
		t.Fatal(err)
	}
	events, _ := v.events.subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := v.Run(ctx); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	srv := httptest.NewServer(v.Handler())
	t.Cleanup(func() {
		srv.Close()
		cancel()
		<-done
	})
	select {
	case <-v.Ready():
	case <-time.After(waitLimit):
		t.Fatal("the view did not load the notes")
	}
	return &env{store: st, feed: feed, fed: fed, view: v, srv: srv, events: events}
}

// waitFirstLayout returns once the view's first full layout has ended,
// which writes the cache and then publishes a reload event.
func (e *env) waitFirstLayout(t *testing.T) {
	t.Helper()
	timeout := time.After(waitLimit)
	for {
		select {
		case msg, open := <-e.events:
			if !open {
				t.Fatal("the event subscription was cut off")
			}
			if strings.HasPrefix(string(msg), "event: reload") && strings.Contains(string(msg), `"reason":"layout"`) {
				return
			}
		case <-timeout:
			t.Fatal("the first layout did not end")
		}
	}
}

// client returns an HTTP client with a cookie jar that does not follow
// redirects.
func client(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func get(t *testing.T, c *http.Client, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// login spends a one-time link with c and returns the session cookie set.
func login(t *testing.T, e *env, c *http.Client, readOnly bool) *http.Cookie {
	t.Helper()
	resp, _ := get(t, c, e.srv.URL+e.view.NewLink(readOnly))
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != PathPrefix {
		t.Fatalf("one-time link: %d to %q, want 303 to %s", resp.StatusCode, resp.Header.Get("Location"), PathPrefix)
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == cookieName {
			return ck
		}
	}
	t.Fatal("the one-time link set no session cookie")
	return nil
}

func decode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

func TestOneTimeLinkOpensASessionOnce(t *testing.T) {
	e := newEnv(t, AuthOptions{}, "")
	anon := client(t)
	if resp, _ := get(t, anon, e.srv.URL+PathPrefix+"api/overview"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("api/overview without a session: %d, want 401", resp.StatusCode)
	}
	if resp, _ := get(t, anon, e.srv.URL+PathPrefix); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != PathPrefix+"login" {
		t.Errorf("the page without a session: %d to %q, want 303 to the login page", resp.StatusCode, resp.Header.Get("Location"))
	}

	c := client(t)
	link := e.view.NewLink(false)
	resp, _ := get(t, c, e.srv.URL+link)
	var ck *http.Cookie
	for _, x := range resp.Cookies() {
		if x.Name == cookieName {
			ck = x
		}
	}
	if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != PathPrefix || len(ck.Value) < 40 {
		t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Strict, Path=%s, a long random value", ck, PathPrefix)
	}
	if resp, _ := get(t, c, e.srv.URL+PathPrefix); resp.StatusCode != http.StatusOK {
		t.Errorf("the page with a session: %d", resp.StatusCode)
	}
	if resp, _ := get(t, client(t), e.srv.URL+link); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the link used again: %d, want 401 (spent)", resp.StatusCode)
	}
	forged := client(t)
	u, _ := url.Parse(e.srv.URL + PathPrefix)
	forged.Jar.SetCookies(u, []*http.Cookie{{Name: cookieName, Value: "forged"}})
	if resp, _ := get(t, forged, e.srv.URL+PathPrefix+"api/overview"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a forged cookie: %d, want 401", resp.StatusCode)
	}
	// The page loads nothing from elsewhere.
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("CSP %q", csp)
	}

	// Logging out ends the session.
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+PathPrefix+"logout", nil)
	req.Header.Set("Origin", e.srv.URL)
	if resp, err := c.Do(req); err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %v %v", resp, err)
	}
	c.Jar.SetCookies(u, []*http.Cookie{ck}) // even if the browser kept it
	if resp, _ := get(t, c, e.srv.URL+PathPrefix+"api/overview"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("after logout: %d, want 401", resp.StatusCode)
	}
}

func TestTokenLoginAndReadOnlySessions(t *testing.T) {
	e := newEnv(t, AuthOptions{CheckToken: func(tok string) (bool, bool) {
		switch tok {
		case "rw-token":
			return false, true
		case "ro-token":
			return true, true
		}
		return false, false
	}}, "")
	form := func(c *http.Client, token, origin string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+PathPrefix+"login", strings.NewReader(url.Values{"token": {token}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := form(client(t), "wrong", e.srv.URL); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("an unknown token: %d, want 401", resp.StatusCode)
	}
	if resp := form(client(t), "rw-token", "https://evil.example"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a login posted from another site: %d, want 403", resp.StatusCode)
	}
	save := func(c *http.Client) int {
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+PathPrefix+"api/note", strings.NewReader(`{"id":"y/e.md","content":"E, edited.","version":"h-y/e.mdE."}`))
		req.Header.Set("Origin", e.srv.URL)
		req.Header.Set("X-Vaultgraph-View", "1")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	ro := client(t)
	if resp := form(ro, "ro-token", e.srv.URL); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("read-only token: %d, want 303", resp.StatusCode)
	}
	_, b := get(t, ro, e.srv.URL+PathPrefix+"api/note?id=x/a.md")
	if a := decode[noteAnswer](t, b); !a.ReadOnly || a.Content != "" {
		t.Errorf("a read-only session's note: readOnly %v, content %q; want read-only without the markdown", a.ReadOnly, a.Content)
	}
	if code := save(ro); code != http.StatusForbidden {
		t.Errorf("a write from a read-only session: %d, want 403", code)
	}

	rw := client(t)
	if resp := form(rw, "rw-token", e.srv.URL); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("token: %d, want 303", resp.StatusCode)
	}
	if code := save(rw); code != http.StatusOK {
		t.Errorf("a write from a session that may write: %d, want 200", code)
	}
	if n, err := e.store.GetNote(t.Context(), project, "y/e.md"); err != nil || n.Content != "E, edited." {
		t.Errorf("after the write: %v %v", n, err)
	}
}

func TestOverviewNeighbourhoodSearchAndPath(t *testing.T) {
	e := newEnv(t, AuthOptions{}, "")
	c := client(t)
	login(t, e, c, false)

	resp, b := get(t, c, e.srv.URL+PathPrefix+"api/overview")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("overview: %d %s", resp.StatusCode, b)
	}
	o := decode[overviewJSON](t, b)
	if o.Total != 6 || o.Shown != 6 || len(o.Edges) != 2*5 {
		t.Fatalf("overview: %d of %d notes, %d links; want 6 of 6, 5 links", o.Shown, o.Total, len(o.Edges)/2)
	}
	in := map[string]int32{}
	for i, id := range o.IDs {
		in[id] = o.In[i]
		if math.IsNaN(float64(o.X[i])) || math.IsNaN(float64(o.Y[i])) {
			t.Errorf("%s has no position", id)
		}
	}
	if in["y/c.md"] != 2 || in["x/a.md"] != 1 || in["f.md"] != 0 {
		t.Errorf("in-degrees %v", in)
	}
	if !slices.Equal(o.Ghosts, []string{"nowhere"}) || !slices.Contains(o.Folders, "x") || !slices.Equal(o.Tags, []string{"focus"}) {
		t.Errorf("ghosts %v, folders %v, tags %v", o.Ghosts, o.Folders, o.Tags)
	}
	// ?max keeps the most central notes.
	_, b = get(t, c, e.srv.URL+PathPrefix+"api/overview?max=2")
	if o := decode[overviewJSON](t, b); o.Shown != 2 || o.Total != 6 || !slices.Contains(o.IDs, "y/c.md") {
		t.Errorf("overview of at most 2: %d shown %v", o.Shown, o.IDs)
	}

	around := func(id string, depth string) map[string]int {
		resp, b := get(t, c, e.srv.URL+PathPrefix+"api/around?id="+url.QueryEscape(id)+"&depth="+depth)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("around %s: %d %s", id, resp.StatusCode, b)
		}
		out := map[string]int{}
		for _, n := range decode[aroundAnswer](t, b).Nodes {
			out[n.ID] = n.Depth
		}
		return out
	}
	if got, want := around("X/A.md", "1"), map[string]int{"x/a.md": 0, "x/b.md": 1, "y/c.md": 1, "y/d.md": 1}; !mapsEqual(got, want) {
		t.Errorf("depth 1 around a (asked as X/A.md): %v, want %v", got, want)
	}
	if got, want := around("x/a.md", "2"), map[string]int{"x/a.md": 0, "x/b.md": 1, "y/c.md": 1, "y/d.md": 1, "y/e.md": 2}; !mapsEqual(got, want) {
		t.Errorf("depth 2 around a: %v, want %v", got, want)
	}
	if resp, _ := get(t, c, e.srv.URL+PathPrefix+"api/around?id=x/a.md&depth=3"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("depth 3: %d, want 400", resp.StatusCode)
	}
	if resp, _ := get(t, c, e.srv.URL+PathPrefix+"api/around?id=nope.md"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown note: %d, want 404", resp.StatusCode)
	}

	_, b = get(t, c, e.srv.URL+PathPrefix+"api/note?id=x/a.md")
	a := decode[noteAnswer](t, b)
	if !slices.Equal(a.Ghosts, []string{"nowhere"}) || len(a.Backlinks) != 1 || a.Backlinks[0].ID != "y/d.md" {
		t.Errorf("note a: ghosts %v, backlinks %v", a.Ghosts, a.Backlinks)
	}
	for _, want := range []string{`data-id="x/b.md">b</a>`, `data-id="y/c.md">the c</a>`, `class="wikilink ghost"`} {
		if !strings.Contains(a.HTML, want) {
			t.Errorf("rendered note lacks %s:\n%s", want, a.HTML)
		}
	}
	if strings.Contains(a.HTML, "<script") || strings.Contains(a.HTML, "javascript:") {
		t.Errorf("rendered note keeps raw HTML or a javascript: URL:\n%s", a.HTML)
	}

	_, b = get(t, c, e.srv.URL+PathPrefix+"api/search?q=alone")
	s := decode[struct {
		Mode    string      `json:"mode"`
		Results []searchHit `json:"results"`
	}](t, b)
	if s.Mode != "keyword" || len(s.Results) == 0 || s.Results[0].ID != "f.md" {
		t.Errorf("search for alone: %+v", s)
	}

	_, b = get(t, c, e.srv.URL+PathPrefix+"api/path?from=y/d.md&to=y/e.md")
	p := decode[struct {
		Path []linkJSON `json:"path"`
	}](t, b)
	var ids []string
	for _, l := range p.Path {
		ids = append(ids, l.ID)
	}
	if !slices.Equal(ids, []string{"y/d.md", "x/a.md", "y/c.md", "y/e.md"}) {
		t.Errorf("path d to e: %v", ids)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// sse reads one page's event stream.
type sse struct {
	r    *bufio.Reader
	body io.Closer
}

func openEvents(t *testing.T, e *env, c *http.Client) *sse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+PathPrefix+"api/events", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("events: %d", resp.StatusCode)
	}
	t.Cleanup(func() { resp.Body.Close() })
	s := &sse{r: bufio.NewReader(resp.Body), body: resp.Body}
	if name, _ := s.next(t); name != "hello" {
		t.Fatalf("first event %q, want hello", name)
	}
	return s
}

// next returns the next event's name and data.
func (s *sse) next(t *testing.T) (string, string) {
	t.Helper()
	var name, data string
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			t.Fatalf("event stream: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "" && name != "":
			return name, data
		case strings.HasPrefix(line, "event: "):
			name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			data = line[len("data: "):]
		}
	}
}

// nextDelta skips other events (a layout's reload) up to a delta.
func (s *sse) nextDelta(t *testing.T) deltaEvent {
	t.Helper()
	for {
		name, data := s.next(t)
		if name == "delta" {
			return decode[deltaEvent](t, []byte(data))
		}
	}
}

func TestChangesReachOpenPages(t *testing.T) {
	e := newEnv(t, AuthOptions{}, "")
	// The first layout's end starts a revision of its own; waiting for it
	// keeps the revisions below those of the changes alone.
	e.waitFirstLayout(t)
	c := client(t)
	login(t, e, c, false)
	events := openEvents(t, e, c)

	// A new note linking a: the page gets it, placed near a.
	if err := e.fed.UpsertNotes(t.Context(), project, []core.Note{note("x/g.md", "G links [[a]].", nil, "x/a.md")}); err != nil {
		t.Fatal(err)
	}
	d := events.nextDelta(t)
	if len(d.Upsert) != 1 || d.Upsert[0].ID != "x/g.md" || !slices.Equal(d.Upsert[0].Out, []string{"x/a.md"}) {
		t.Fatalf("delta after a new note: %+v", d)
	}
	if x, y := d.Upsert[0].X, d.Upsert[0].Y; math.IsNaN(float64(x)) || math.IsNaN(float64(y)) {
		t.Errorf("the new note has no position")
	}

	// Deleting c: c is removed, and a and b (which linked it) are sent
	// again, their link to c now unresolved.
	if _, err := e.fed.DeleteNotes(t.Context(), project, []string{"y/c.md"}); err != nil {
		t.Fatal(err)
	}
	d = events.nextDelta(t)
	var up []string
	for _, n := range d.Upsert {
		up = append(up, n.ID)
		if slices.Contains(n.Out, "y/c.md") {
			t.Errorf("%s still links the deleted note: %v", n.ID, n.Out)
		}
	}
	slices.Sort(up)
	if !slices.Equal(d.Remove, []string{"y/c.md"}) || !slices.Equal(up, []string{"x/a.md", "x/b.md"}) {
		t.Errorf("delta after a delete: remove %v, upsert %v", d.Remove, up)
	}
	_, b := get(t, c, e.srv.URL+PathPrefix+"api/overview")
	if o := decode[overviewJSON](t, b); o.Total != 6 || o.Rev != d.Rev {
		t.Errorf("overview after the changes: %d notes at rev %d, want 6 at %d", o.Total, o.Rev, d.Rev)
	}
}

func TestLayoutIsCachedAndReused(t *testing.T) {
	cache := filepath.Join(t.TempDir(), CacheFileName)
	e := newEnv(t, AuthOptions{Open: true}, cache)
	e.waitFirstLayout(t)
	first := positions(e.view)
	cached, err := readCache(cache, project)
	if err != nil || len(cached) != 6 {
		t.Fatalf("cache: %d notes, %v", len(cached), err)
	}

	// A second view over the same store and cache lays nothing out: every
	// note is where the first drew it.
	v2, err := New(Options{Project: project, Store: e.store, Graph: core.NewGraphService(project, e.store, nil), CacheFile: cache})
	if err != nil {
		t.Fatal(err)
	}
	if err := v2.load(t.Context()); err != nil {
		t.Fatal(err)
	}
	for id, n := range v2.nodes {
		if !n.Placed || n.X != first[id][0] || n.Y != first[id][1] {
			t.Errorf("%s after a restart: placed %v at (%v, %v), want the cached (%v, %v)", id, n.Placed, n.X, n.Y, first[id][0], first[id][1])
		}
	}
	// A cache of another project is not used.
	if other, err := readCache(cache, "another"); err != nil || other != nil {
		t.Errorf("another project's cache: %v %v", other, err)
	}
}

func positions(v *View) map[string][2]float64 {
	v.mu.RLock()
	defer v.mu.RUnlock()
	out := map[string][2]float64{}
	for id, n := range v.nodes {
		out[id] = [2]float64{n.X, n.Y}
	}
	return out
}

func TestLayoutSeparatesAndSettles(t *testing.T) {
	// Two cliques of 30 notes joined by one link: after the layout every
	// position is finite and each clique's notes are closer to their own
	// centre than the two centres are to each other.
	nodes := map[string]*node{}
	for c := range 2 {
		for i := range 30 {
			n := &node{ID: string(rune('a'+c)) + "/" + string(rune('A'+i)) + ".md", Path: "p", Title: "t"}
			nodes[n.ID] = n
		}
	}
	for id, n := range nodes {
		for other := range nodes {
			if other != id && other[0] == id[0] {
				n.Out = append(n.Out, other)
			}
		}
	}
	nodes["a/A.md"].Out = append(nodes["a/A.md"].Out, "b/A.md")
	s := buildSnapshot(1, nodes)
	x, y := layOut(t, s)
	var cx, cy [2]float64
	for i, n := range s.nodes {
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			t.Fatalf("%s at (%v, %v)", n.ID, x[i], y[i])
		}
		k := int(n.ID[0] - 'a')
		cx[k] += x[i] / 30
		cy[k] += y[i] / 30
	}
	between := math.Hypot(cx[0]-cx[1], cy[0]-cy[1])
	for i, n := range s.nodes {
		k := int(n.ID[0] - 'a')
		if d := math.Hypot(x[i]-cx[k], y[i]-cy[k]); d >= between {
			t.Errorf("%s is %.1f from its clique's centre, the centres %.1f apart", n.ID, d, between)
		}
	}
}

func TestSameOrigin(t *testing.T) {
	for _, c := range []struct {
		site, origin string
		want         bool
	}{
		{"same-origin", "null", true}, // a browser's form post under Referrer-Policy: no-referrer
		{"same-origin", "", true},
		{"cross-site", "", false},
		{"same-site", "http://other.localhost:1", false},
		{"none", "", false},
		{"", "", true}, // not a browser
		{"", "http://127.0.0.1:8765", true},
		{"", "http://evil.example", false},
		{"", "null", false},
	} {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8765/view/login", nil)
		if c.site != "" {
			r.Header.Set("Sec-Fetch-Site", c.site)
		}
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if got := sameOrigin(r); got != c.want {
			t.Errorf("Sec-Fetch-Site %q, Origin %q: %v, want %v", c.site, c.origin, got, c.want)
		}
	}
}

func TestAssetsAreEmbeddedAndGzipped(t *testing.T) {
	e := newEnv(t, AuthOptions{Open: true}, "")
	for _, name := range []string{"app.js", "graph.js", "style.css"} {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+PathPrefix+"assets/"+name, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		raw, _ := assets.ReadFile("assets/" + name)
		ct := resp.Header.Get("Content-Type")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" || len(b) >= len(raw) ||
			!(strings.HasPrefix(ct, "text/javascript") || strings.HasPrefix(ct, "text/css")) {
			t.Errorf("%s: %d, %q, %q, %d bytes of %d", name, resp.StatusCode, resp.Header.Get("Content-Encoding"), ct, len(b), len(raw))
		}
		// Without gzip, as it is.
		resp, body := get(t, http.DefaultClient, e.srv.URL+PathPrefix+"assets/"+name)
		if resp.StatusCode != http.StatusOK || string(body) != string(raw) {
			t.Errorf("%s without gzip: %d, %d bytes", name, resp.StatusCode, len(body))
		}
	}
}

// layOut seeds s's positions and lays them out as a full layout does,
// returning the positions by node.
func layOut(t *testing.T, s *snapshot) (x, y []float64) {
	t.Helper()
	seedPositions(s)
	x, y = make([]float64, len(s.nodes)), make([]float64, len(s.nodes))
	for i, n := range s.nodes {
		x[i], y[i] = n.X, n.Y
	}
	if !layoutPositions(t.Context(), x, y, s.edges) {
		t.Fatal("layout did not finish")
	}
	return x, y
}
