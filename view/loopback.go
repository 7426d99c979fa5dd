package view

import (
	"net"
	"net/http"
	"strings"
)

// LoopbackListen reports whether addr (host:port) has a loopback address
// or localhost as its host: the only addresses `vaultgraph view`, which
// has no login of its own, listens on.
func LoopbackListen(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// LoopbackOnly refuses (403) a request whose Host is not a loopback name
// (a page of another site rebound to 127.0.0.1: DNS rebinding), as serve
// --http does for /mcp and /view; `vaultgraph view` serves through it.
func LoopbackOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if !LoopbackListen(net.JoinHostPort(strings.Trim(host, "[]"), "0")) {
			http.Error(w, "this local server answers only to localhost or 127.0.0.1 (DNS rebinding protection)", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
