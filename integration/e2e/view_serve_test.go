package e2e

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestWebViewBehindServeTokens: serve --http serves the view at /view/
// behind its HTTP tokens. A browser without a session gets the login
// form; a read-only token opens a read-only view (no editor, writes
// refused); a full token opens one that may edit; no token and a wrong
// token are refused.
func TestWebViewBehindServeTokens(t *testing.T) {
	t.Parallel()
	st := embeddedStore(t)
	vault := copyVault(t, focusNotes)
	h := startHTTP(t, st, vault, "127.0.0.1:0")
	base := "http://" + h.addr
	if !eventually(readyTimeout, func() bool {
		code, _ := getStatus(t, base+"/view/login", "")
		return code == http.StatusOK
	}) {
		t.Fatalf("/view/login never answered 200; stderr:\n%s", h.stderr.String())
	}
	if code, _ := getStatus(t, base+"/view/api/overview", ""); code != http.StatusUnauthorized {
		t.Errorf("api/overview without a session: %d, want 401", code)
	}
	// A bearer token is not a session: the view's API wants the cookie.
	if code := getWithBearer(t, base+"/view/api/overview", rwToken); code != http.StatusUnauthorized {
		t.Errorf("api/overview with a bearer header: %d, want 401", code)
	}

	logIn := func(t *testing.T, token string) context.Context {
		ctx := newBrowser(t)
		run(t, ctx, "open the login form", chromedp.Navigate(base+"/view/"),
			chromedp.WaitVisible(chromedp.CSS(`#token`)),
			chromedp.SendKeys(chromedp.CSS(`#token`), token))
		// Submitting navigates: wait for the page it leads to.
		sctx, cancel := context.WithTimeout(ctx, browserTimeout)
		defer cancel()
		if _, err := chromedp.RunResponse(sctx, chromedp.Submit(chromedp.CSS(`#token`))); err != nil {
			t.Fatalf("browser: submit the login form: %v", err)
		}
		return ctx
	}
	t.Run("a wrong token is refused", func(t *testing.T) {
		ctx := logIn(t, "not-a-token")
		run(t, ctx, "wait for the refusal", waitJS(`document.querySelector("#message") && document.querySelector("#message").textContent.includes("not one this server accepts")`))
		if status := eval[int](t, ctx, `fetch("api/overview").then(r => r.status)`); status != http.StatusUnauthorized {
			t.Errorf("api/overview after a refused login: %d, want 401", status)
		}
	})
	// A save names the version the page read (api/note's "version"; a
	// read-only view gets none and sends a made-up one, refused first for
	// being read-only).
	save := `fetch("api/note?id=" + encodeURIComponent("focus/beta.md")).then(r => r.json()).then(n =>
		fetch("api/note", {method: "POST", headers: {"X-Vaultgraph-View": "1", "Content-Type": "application/json"},
			body: JSON.stringify({id: "focus/beta.md", content: "Beta, edited from the page.\n", version: n.version || "none"})})).then(r => r.status)`
	t.Run("a read-only token opens a read-only view", func(t *testing.T) {
		ctx := logIn(t, roToken)
		run(t, ctx, "open a note", waitJS(`window.vgState && window.vgState.drawn`),
			chromedp.Navigate(base+"/view/#note=focus/beta.md"),
			waitJS(`window.vgState.focus === "focus/beta.md" && document.querySelector("#note-title").textContent === "Beta"`))
		if hidden := eval[bool](t, ctx, `document.querySelector("#edit").classList.contains("hidden")`); !hidden {
			t.Error("the read-only view offers the editor")
		}
		if status := eval[int](t, ctx, save); status != http.StatusForbidden {
			t.Errorf("a write from the read-only view: %d, want 403", status)
		}
		screenshot(t, ctx, "read-only")
	})
	t.Run("a full token may edit", func(t *testing.T) {
		ctx := logIn(t, rwToken)
		run(t, ctx, "open a note", waitJS(`window.vgState && window.vgState.drawn`),
			chromedp.Navigate(base+"/view/#note=focus/beta.md"),
			waitJS(`window.vgState.focus === "focus/beta.md" && !document.querySelector("#edit").classList.contains("hidden")`))
		if status := eval[int](t, ctx, save); status != http.StatusOK {
			t.Fatalf("a write from the view: %d, want 200", status)
		}
		if got := readFile(t, vault, "focus/Beta.md"); got != "Beta, edited from the page.\n" {
			t.Errorf("the file after the write: %q", got)
		}

		// Who changed what (issue 46.2): the note's last change names the
		// token's holder (token:1, the first of http.tokens), and so does
		// the recent changes panel, which an edit outside then joins live.
		run(t, ctx, "see who changed the note",
			waitJS(`document.querySelector("#note-changed").textContent.includes("modified by token:1")`),
			chromedp.Click(chromedp.CSS(`#changes-toggle`)),
			waitJS(`!document.querySelector("#changes-panel").classList.contains("hidden") &&
				[...document.querySelectorAll("#changes-list li")].some(li => li.textContent.includes("Beta") && li.textContent.includes("modified by token:1"))`))
		if err := os.WriteFile(filepath.Join(vault, "focus", "Gamma.md"), []byte("Gamma points at [[Hub]], edited outside.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		run(t, ctx, "see the edit outside in the open panel",
			waitJS(`[...document.querySelectorAll("#changes-list li")].some(li => li.textContent.includes("Gamma") && li.textContent.includes("modified by outside"))`))
		screenshot(t, ctx, "who-changed-what")
	})
}

// getWithBearer GETs url with an Authorization: Bearer header.
func getWithBearer(t *testing.T, url, token string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
