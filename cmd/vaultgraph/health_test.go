package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHealthURL(t *testing.T) {
	cases := map[string]string{
		"0.0.0.0:8080":   "http://127.0.0.1:8080/healthz",
		":8080":          "http://127.0.0.1:8080/healthz",
		"[::]:8080":      "http://127.0.0.1:8080/healthz",
		"127.0.0.1:8765": "http://127.0.0.1:8765/healthz",
		"[::1]:9000":     "http://[::1]:9000/healthz",
		"vault.local:80": "http://vault.local:80/healthz",
	}
	for addr, want := range cases {
		got, err := healthURL(addr, "/healthz")
		require.NoError(t, err, addr)
		assert.Equal(t, want, got, addr)
	}
	got, err := healthURL(":8080", "/readyz")
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:8080/readyz", got)
	_, err = healthURL("8080", "/healthz")
	assert.Error(t, err)
}

func TestHealth(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" && r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte("store: down\n"))
	}))
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")

	t.Run("healthy server, address from the configuration", func(t *testing.T) {
		isolate(t)
		t.Setenv("VAULTGRAPH_HTTP_ADDR", addr)
		r := runCLI(t, "health")
		assert.Equal(t, exitOK, r.code, r.stderr)
		assert.Equal(t, "ok: "+srv.URL+"/healthz answered 200 OK\n", r.stdout)
	})
	t.Run("readiness", func(t *testing.T) {
		isolate(t)
		t.Setenv("VAULTGRAPH_HTTP_ADDR", addr)
		r := runCLI(t, "health", "--ready")
		assert.Equal(t, exitOK, r.code, r.stderr)
		assert.Equal(t, "ok: "+srv.URL+"/readyz answered 200 OK\n", r.stdout)
	})
	t.Run("unhealthy server", func(t *testing.T) {
		isolate(t)
		status = http.StatusServiceUnavailable
		t.Cleanup(func() { status = http.StatusOK })
		r := runCLI(t, "health", "--url", srv.URL+"/healthz")
		assert.Equal(t, exitError, r.code)
		assert.Contains(t, r.stderr, "answered 503 Service Unavailable store: down")
	})
	t.Run("nothing listening", func(t *testing.T) {
		isolate(t)
		r := runCLI(t, "health", "--url", "http://127.0.0.1:1/healthz")
		assert.Equal(t, exitError, r.code)
		assert.Contains(t, r.stderr, "health: http://127.0.0.1:1/healthz")
	})
	t.Run("stdio: nothing to probe", func(t *testing.T) {
		isolate(t)
		r := runCLI(t, "health")
		assert.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, "no HTTP server to probe")
	})
}
