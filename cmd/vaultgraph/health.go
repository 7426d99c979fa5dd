package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/server"
)

// healthTimeout bounds one probe: a container healthcheck runs it every
// interval, and a hung server must count as unhealthy, not block the check.
const healthTimeout = 5 * time.Second

func newHealthCommand(s streams) *cobra.Command {
	var url string
	var ready bool
	cmd := &cobra.Command{
		Use:   "health",
		Short: "Probe a running serve --http through its /healthz (container healthchecks)",
		Long: `health asks a running "vaultgraph serve --http" whether it is healthy: it
GETs /healthz (alive) on the configured http.addr (on 127.0.0.1 when the
address binds every interface), with --ready /readyz (the first sync is done and
the store answers), or --url, and exits 0 when the answer is 200 OK, 1
otherwise (no answer within 5 seconds, or 503).

It is the container image's HEALTHCHECK, which needs no shell or curl in the
image. Without http.addr (serve speaks stdio; sync --watch has no HTTP server)
there is nothing to probe: health says so and exits 0.`,
		Example: `  VAULTGRAPH_HTTP_ADDR=0.0.0.0:8080 vaultgraph health
  vaultgraph health --url http://127.0.0.1:8765/healthz`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if url == "" {
				cfg, err := config.Load(config.LoadOptions{Flags: cmd.Flags()})
				if err != nil {
					return err
				}
				if cfg.HTTP.Addr == "" {
					_, err := fmt.Fprintln(s.out, "http.addr is not set: no HTTP server to probe (serve speaks stdio)")
					return err
				}
				path := server.HealthPath
				if ready {
					path = server.ReadyPath
				}
				if url, err = healthURL(cfg.HTTP.Addr, path); err != nil {
					return &config.Error{Problems: []config.Problem{{Key: "http.addr", Message: err.Error()}}}
				}
			}
			return probe(cmd.Context(), s, url)
		},
	}
	cmd.Flags().StringVar(&url, "url", "", "the URL to probe (default: /healthz on http.addr)")
	cmd.Flags().BoolVar(&ready, "ready", false, "probe readiness (/readyz) instead of liveness (/healthz)")
	return cmd
}

// healthURL is the URL of path on a server listening on addr, reached on
// loopback when addr binds every interface.
func healthURL(addr, path string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("%q is not host:port: %v", addr, err)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + path, nil
}

// probe GETs url and fails unless it answers 200.
func probe(ctx context.Context, s streams, url string) error {
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("health: %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512)) // a reason, if any, is short
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health: %s answered %s %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	_, err = fmt.Fprintf(s.out, "ok: %s answered %s\n", url, resp.Status)
	return err
}
