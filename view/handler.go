package view

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// PathPrefix is where the view is served: serve --http mounts it beside
// /mcp, vaultgraph view serves it alone.
const PathPrefix = "/view/"

//go:embed assets
var assets embed.FS

// maxBodyBytes caps a request body of the view (a note's new content, a
// login form): the limit of /mcp's messages.
const maxBodyBytes = 8 << 20

// Handler returns the view's HTTP handler for the paths under PathPrefix.
func (v *View) Handler() http.Handler {
	static, _ := fs.Sub(assets, "assets")
	files := http.StripPrefix(PathPrefix+"assets/", http.FileServer(http.FS(static)))
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+PathPrefix+"{$}", v.page)
	mux.HandleFunc("GET "+PathPrefix+"login", v.loginPage)
	mux.HandleFunc("POST "+PathPrefix+"login", v.loginForm)
	mux.HandleFunc("POST "+PathPrefix+"logout", v.logout)
	mux.Handle("GET "+PathPrefix+"assets/", cacheAssets(gzipAssets(files)))
	mux.HandleFunc("GET "+PathPrefix+"api/overview", v.api(v.serveOverview))
	mux.HandleFunc("GET "+PathPrefix+"api/note", v.api(v.serveNote))
	mux.HandleFunc("GET "+PathPrefix+"api/around", v.api(v.serveAround))
	mux.HandleFunc("GET "+PathPrefix+"api/search", v.api(v.serveSearch))
	mux.HandleFunc("GET "+PathPrefix+"api/path", v.api(v.servePath))
	mux.HandleFunc("GET "+PathPrefix+"api/events", v.api(v.serveEvents))
	mux.HandleFunc("GET "+PathPrefix+"api/changes", v.api(v.serveChanges))
	mux.HandleFunc("POST "+PathPrefix+"api/note", v.api(v.saveNote))
	return securityHeaders(mux)
}

// securityHeaders: the page loads nothing from elsewhere (every asset is
// in the binary), runs only its own scripts, and may not be framed.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

// gzippedAssets are the embedded assets compressed once, by name.
var gzippedAssets = sync.OnceValue(func() map[string][]byte {
	out := map[string][]byte{}
	_ = fs.WalkDir(assets, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := assets.ReadFile(p)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(b)
		_ = zw.Close()
		out[strings.TrimPrefix(p, "assets/")] = buf.Bytes()
		return nil
	})
	return out
})

// gzipAssets serves an asset gzipped to a browser that takes it (a third
// of the bytes), else as it is.
func gzipAssets(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, PathPrefix+"assets/")
		gz, ok := gzippedAssets()[name]
		if !ok || !acceptsGzip(r) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
		h.Set("Content-Encoding", "gzip")
		h.Set("Vary", "Accept-Encoding")
		_, _ = w.Write(gz)
	})
}

func cacheAssets(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache") // revalidated: a new binary brings new assets
		next.ServeHTTP(w, r)
	})
}

// page serves the view to a session, or sends the browser to log in.
func (v *View) page(w http.ResponseWriter, r *http.Request) {
	if _, ok := v.auth.access(r); !ok {
		http.Redirect(w, r, PathPrefix+"login", http.StatusSeeOther)
		return
	}
	serveAsset(w, "index.html")
}

func serveAsset(w http.ResponseWriter, name string) {
	b, err := assets.ReadFile("assets/" + name)
	if err != nil {
		http.Error(w, "missing asset", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}

// loginPage spends a one-time link (?k=) or shows the login form.
func (v *View) loginPage(w http.ResponseWriter, r *http.Request) {
	if k := r.URL.Query().Get("k"); k != "" {
		id, ok := v.auth.spendLink(k)
		if !ok {
			v.log.Info("view: one-time link refused (spent or unknown)", "remote", r.RemoteAddr)
			v.loginResponse(w, http.StatusUnauthorized, "This link was used already or is not one this server made. Run vaultgraph view again for a new link, or log in with a token.")
			return
		}
		v.auth.setCookie(w, r, id)
		http.Redirect(w, r, PathPrefix, http.StatusSeeOther)
		return
	}
	if _, ok := v.auth.access(r); ok {
		http.Redirect(w, r, PathPrefix, http.StatusSeeOther)
		return
	}
	v.loginResponse(w, http.StatusOK, "")
}

// loginResponse is the login page with a message (escaped), telling
// whether tokens log in here.
func (v *View) loginResponse(w http.ResponseWriter, code int, msg string) {
	b, err := assets.ReadFile("assets/login.html")
	if err != nil {
		http.Error(w, "missing asset", http.StatusInternalServerError)
		return
	}
	hint := "Open the link that <code>vaultgraph view</code> printed: it logs this browser in once."
	if v.auth.opts.CheckToken != nil {
		hint = "Log in with an HTTP token of this server (the same as for /mcp; a read-only token opens a read-only view)."
	}
	page := strings.Replace(string(b), "{{hint}}", hint, 1)
	page = strings.Replace(page, "{{message}}", htmlEscape(msg), 1)
	if v.auth.opts.CheckToken == nil {
		page = strings.Replace(page, `class="token-form"`, `class="token-form hidden"`, 1)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, page)
}

// loginForm checks a token typed into the form.
func (v *View) loginForm(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		v.loginResponse(w, http.StatusForbidden, "This form must be sent from the view's own page.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		v.loginResponse(w, http.StatusBadRequest, "The form could not be read; try again.")
		return
	}
	id, ok := v.auth.login(strings.TrimSpace(r.PostForm.Get("token")))
	if !ok {
		v.log.Info("view: login refused: unknown token", "remote", r.RemoteAddr)
		v.loginResponse(w, http.StatusUnauthorized, "That token is not one this server accepts (a read-only token is typed without its ro: prefix).")
		return
	}
	v.auth.setCookie(w, r, id)
	http.Redirect(w, r, PathPrefix, http.StatusSeeOther)
}

func (v *View) logout(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		writeError(w, http.StatusForbidden, "log out from the view's own page")
		return
	}
	v.auth.logout(r)
	clearCookie(w, r)
	http.Redirect(w, r, PathPrefix+"login", http.StatusSeeOther)
}

// sameOrigin reports whether a state-changing request comes from the
// view's own page (SameSite=Strict already keeps other sites' requests
// cookie-less; this also stops a login forced from another site). A
// browser says so in Sec-Fetch-Site; without it, the Origin header, when
// sent, must name this host. The page's Referrer-Policy (no-referrer)
// makes browsers send "Origin: null" with its own form posts and fetches,
// so Origin alone cannot tell a browser's same-origin request.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin"
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

// api wraps an API handler: a live session is required (401 otherwise),
// and the notes must be loaded (503 until then).
func (v *View) api(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		readOnly, ok := v.auth.access(r)
		if !ok {
			v.log.Info("view: request refused: no session", "remote", r.RemoteAddr, "path", r.URL.Path)
			writeError(w, http.StatusUnauthorized, "not logged in: open "+PathPrefix+"login")
			return
		}
		select {
		case <-v.ready:
		default:
			w.Header().Set("Retry-After", "2")
			writeError(w, http.StatusServiceUnavailable, "the view is loading the vault; retry in a moment")
			return
		}
		if v.loadErr != nil {
			writeError(w, http.StatusServiceUnavailable, "the view could not read the vault's notes; see the server's log")
			return
		}
		if r.Method != http.MethodGet {
			if readOnly {
				writeError(w, http.StatusForbidden, "this session is read-only")
				return
			}
			if !sameOrigin(r) || r.Header.Get("X-Vaultgraph-View") != "1" {
				writeError(w, http.StatusForbidden, "writes must come from the view's own page")
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
		}
		next(w, r.WithContext(contextWithReadOnly(r.Context(), readOnly)))
	}
}

// writeJSON writes v as JSON, gzipped when the client takes it and it is
// large.
func writeJSON(w http.ResponseWriter, r *http.Request, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "the answer could not be encoded")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if len(b) > 4096 && acceptsGzip(r) {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		_, _ = zw.Write(b)
		_ = zw.Close()
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Vary", "Accept-Encoding")
		b = buf.Bytes()
	}
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

func acceptsGzip(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept-Encoding"), "gzip")
}

// writeError writes {"error": msg}.
func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func htmlEscape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")
	return r.Replace(s)
}

// serveOverview answers the whole graph (or its DefaultOverviewMax most
// central notes; ?max=N, 0 for all).
func (v *View) serveOverview(w http.ResponseWriter, r *http.Request) {
	max := DefaultOverviewMax
	if s := r.URL.Query().Get("max"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "max must be a whole number, 0 for every note")
			return
		}
		max = n
	}
	gz := v.overview(max)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if acceptsGzip(r) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Vary", "Accept-Encoding")
		_, _ = w.Write(gz)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		writeError(w, http.StatusInternalServerError, "the overview could not be read")
		return
	}
	_, _ = io.Copy(w, zr)
}

// Gate answers for a view that is not built yet (serve --http builds it
// after its first sync): 503 with a page that retries, until Set.
type Gate struct {
	h atomic.Pointer[http.Handler]
}

// Set starts serving h.
func (g *Gate) Set(h http.Handler) { g.h.Store(&h) }

func (g *Gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h := g.h.Load(); h != nil {
		(*h).ServeHTTP(w, r)
		return
	}
	w.Header().Set("Retry-After", "2")
	w.Header().Set("Cache-Control", "no-store")
	if strings.HasPrefix(r.URL.Path, PathPrefix+"api/") {
		writeError(w, http.StatusServiceUnavailable, "vaultgraph is starting (its first sync of the vault is running); retry in a few seconds")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Refresh", "2")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = io.WriteString(w, "<!doctype html><title>vaultgraph</title><p>vaultgraph is starting (its first sync of the vault is running); this page reloads by itself.</p>")
}
