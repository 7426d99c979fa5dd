package view

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"os"
	"strings"
)

// Relayed answers /view/ on an HTTP front that relays to another process
// (pid ownerPID): the web view is served by the process that owns the
// store (it reads the store in process), so this one shows it once it
// takes the store over (Gate.Set); until then the page says so and
// reloads by itself, and the API answers 503 with the same message.
func Relayed(ownerPID int) http.Handler {
	msg := fmt.Sprintf("this vaultgraph server (pid %d) relays its MCP clients to the process that owns the vault's store (pid %d), and serves the web view only once it owns the store itself: open the view of that process (serve --http's /view/ or vaultgraph view) or stop it", os.Getpid(), ownerPID)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "10")
		w.Header().Set("Cache-Control", "no-store")
		if strings.HasPrefix(r.URL.Path, PathPrefix+"api/") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Refresh", "10")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "<!doctype html><title>vaultgraph</title><p>"+html.EscapeString(msg)+". This page reloads by itself.</p>")
	})
}
