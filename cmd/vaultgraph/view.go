package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"
	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/owner"
	"github.com/vaultgraph/vaultgraph/server"
	"github.com/vaultgraph/vaultgraph/view"
)

func newViewCommand(s streams) *cobra.Command {
	var listen string
	var open bool
	cmd := &cobra.Command{
		Use:   "view",
		Short: "Open a live web view of the vault's graph in a browser",
		Long: `view syncs the vault into the store (the same store serve uses: the embedded
store's state folder, or Neo4j), keeps it in sync as files change, and serves
a web view of the graph on a loopback address: the whole vault drawn (its
20,000 most central notes when it has more; the layout is computed once and
kept in view-layout.json.gz in the vault's state folder), a note's
neighbourhood with the note rendered, search, paths between notes, a tag
filter; edits in the vault appear in the page as they happen.

It prints a one-time link: opening it logs that browser in (a cookie) and the
link is spent. Press Enter for another link (another browser). --open opens
the link in the system's browser.

The page needs no network: every asset is inside the binary. For a team,
serve --http serves the same view at /view, behind the HTTP tokens.`,
		Example: `  vaultgraph view --vault ~/notes
  vaultgraph view --vault ~/notes --open --listen 127.0.0.1:8766`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !view.LoopbackListen(listen) {
				return usagef(cmd, "--listen %q is not a loopback address: view serves this machine only; for others, use serve --http with http.tokens (the view is at /view)", listen)
			}
			cfg, logger, err := loadConfig(cmd, s, true)
			if err != nil {
				return err
			}
			return runView(cmd.Context(), cfg, logger, s, listen, open)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:0", "loopback address to serve the view on (port 0: any free port)")
	cmd.Flags().BoolVar(&open, "open", false, "open the view in the system's browser")
	return cmd
}

// runView serves the web view alone until ctx ends.
func runView(ctx context.Context, cfg *config.Config, logger *slog.Logger, s streams, listen string, openBrowser bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", listen, err)
	}
	defer ln.Close()
	// The view owns the vault's store as serve does (other processes on
	// the vault reach it through its socket); it cannot share another
	// owner's (serve --http serves the view at /view/).
	var lock *owner.Lock
	if shared(cfg) {
		lock, err = owner.TryLock(stateDirOf(cfg))
		if errors.Is(err, owner.ErrHeld) {
			return fmt.Errorf("another vaultgraph process owns this vault's store (a serve, sync or call); stop it first (a serve --http that owns the store serves the view at %s)", view.PathPrefix)
		}
		if err != nil {
			return err
		}
	}
	syncErr := make(chan error, 1)
	own, err := becomeOwner(ctx, cfg, logger, lock, ownerOptions{watch: cfg.Watch, index: true, warm: true, fail: func(err error) { syncErr <- err }})
	if err != nil {
		lock.Release()
		return err
	}
	defer own.Shutdown(ctx)
	select {
	case <-own.App().firstSync.Done():
	case <-ctx.Done():
		return nil
	}
	select {
	case err := <-syncErr:
		return err
	default:
	}
	bgCtx := own.Background()
	v, err := startView(own, view.AuthOptions{ReadOnly: cfg.ReadOnly})
	if err != nil {
		return err
	}

	mux := http.NewServeMux()
	mux.Handle(view.PathPrefix, v.Handler())
	mux.Handle("/{$}", http.RedirectHandler(view.PathPrefix, http.StatusSeeOther))
	srv := &http.Server{
		Handler:           view.LoopbackOnly(mux),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return bgCtx },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	base := "http://" + ln.Addr().String()
	link := func() string { return base + v.NewLink(false) }
	first := link()
	logger.Info("serving the web view", "addr", ln.Addr().String(), "path", view.PathPrefix)
	if _, err := fmt.Fprintf(s.out, "vaultgraph view: open %s\n(a one-time link; press Enter for another, Ctrl-C to stop)\n", first); err != nil {
		return err
	}
	if openBrowser {
		if err := openURL(first); err != nil {
			logger.Warn("could not open a browser; open the link by hand", "err", err)
		}
	}
	go func() { // every line on stdin prints a new link
		sc := bufio.NewScanner(s.in)
		for sc.Scan() {
			if ctx.Err() != nil {
				return
			}
			_, _ = fmt.Fprintf(s.out, "vaultgraph view: open %s\n", link())
		}
	}()

	select {
	case err := <-served:
		return fmt.Errorf("serve the view: %w", err)
	case <-ctx.Done():
	}
	own.StopBackground() // ends the pages' event streams
	shutdownCtx, cancelShutdown := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancelShutdown()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shut down the view: %w", err)
	}
	return nil
}

// startView builds the web view over the owned app's store and graph
// service, and runs it (load, layout, follow changes) in own's background.
func startView(own *ownerRole, auth view.AuthOptions) (*view.View, error) {
	a := own.App().app
	cache := ""
	if dir := a.cfg.StateDir; dir != "" {
		cache = filepath.Join(config.VaultStateDir(dir, a.cfg.ServedProjects()[0].Path), view.CacheFileName)
	}
	v, err := view.New(view.Options{
		Project: a.primary.Key, Store: a.store, Graph: a.graph, Feed: a.viewFeed, Changes: a.store,
		CacheFile: cache, Auth: auth, Logger: a.logger,
	})
	if err != nil {
		return nil, err
	}
	own.Go(func(ctx context.Context) {
		if err := v.Run(ctx); err != nil {
			a.logger.Error("web view stopped", "err", err)
		}
	})
	return v, nil
}

// viewAuth is how serve --http's view logs people in: with the HTTP
// tokens (a read-only one gets a read-only view), or, without tokens on
// loopback, as /mcp: open. A server with OAuth is never open, whatever
// its address: the view takes only http.tokens (it has no OAuth sign-in
// of its own yet), so with none it opens for no one.
func viewAuth(cfg *config.Config, h *server.HTTPServer) view.AuthOptions {
	if len(cfg.HTTP.Tokens) == 0 && cfg.HTTP.OAuth.Issuer == "" {
		return view.AuthOptions{Open: true, ReadOnly: cfg.ReadOnly}
	}
	return view.AuthOptions{CheckToken: h.CheckToken, TokenActor: h.TokenActor, ReadOnly: cfg.ReadOnly}
}

// openURL opens url in the system's browser.
func openURL(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	return cmd.Start()
}
