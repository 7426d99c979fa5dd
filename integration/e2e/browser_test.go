package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browserTimeout bounds one step in the browser (a page load, a wait for
// an element); every wait ends at its event.
const browserTimeout = 2 * time.Minute

// chromiumPath finds Debian's chromium (what .ci/run installs), or the
// browser VAULTGRAPH_CHROMIUM names. Without one the browser tests skip,
// unless VAULTGRAPH_REQUIRE_BROWSER is set (CI), where that is a failure.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("VAULTGRAPH_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("VAULTGRAPH_REQUIRE_BROWSER") != "" {
		t.Fatal("no chromium on the PATH and VAULTGRAPH_REQUIRE_BROWSER is set (apt-get install chromium)")
	}
	t.Skip("no chromium on the PATH (apt-get install chromium); set VAULTGRAPH_CHROMIUM to another browser")
	return ""
}

// newBrowser starts a headless Chromium of t's own (fresh profile) and
// returns a tab's context. The flags keep it off the network: this
// machine has none beyond loopback, and Chromium's background requests
// would otherwise be refused many at a time.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // starts the browser, with no timeout on this first call
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// run runs browser steps within browserTimeout, failing t with what was
// being done.
func run(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, browserTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("browser: %s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression in the page (awaiting a
// promise) and decodes its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, browserTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("browser: evaluate %s: %v", expr, err)
	}
	return v
}

// waitJS waits until the JavaScript expression is true (polled in the
// page at each animation frame).
func waitJS(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(browserTimeout))
}

// pickResult picks the search result id in the list #list as a mouse
// does (the page acts on mousedown), and waits until done holds. The list
// is drawn again for each answer while the query is typed, so a node found
// first may be gone when clicked ("Could not find node with given id"
// under load); the pick is repeated on the current node while the list is
// shown.
func pickResult(list, id, done string) chromedp.Action[chromedp.Void] {
	return waitJS(fmt.Sprintf(`(() => {
  const ul = document.querySelector(%q);
  const li = ul && ul.querySelector('li[data-id=' + JSON.stringify(%q) + ']');
  if (li && !ul.classList.contains("hidden")) li.dispatchEvent(new MouseEvent("mousedown", {bubbles: true, cancelable: true}));
  return %s;
})()`, list, id, done))
}

// artifactsDir is where the browser tests write screenshots:
// VAULTGRAPH_ARTIFACTS, else a folder in the system's temporary
// directory (kept after the run, logged).
func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("VAULTGRAPH_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "vaultgraph-e2e-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// screenshot writes the tab's viewport as a PNG artifact named after t
// and name, and returns its path.
func screenshot(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, browserTimeout)
	defer cancel()
	png, err := chromedp.Run(sctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("browser: screenshot %s: %v", name, err)
	}
	safe := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
	p := filepath.Join(artifactsDir(t), fmt.Sprintf("%s-%s.png", safe, name))
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
	return p
}
