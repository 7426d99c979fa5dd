package view_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/vaultgraph/vaultgraph/view"
)

func TestLoopbackListen(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:0": true, "localhost:8766": true, "LOCALHOST:1": true, "[::1]:80": true, "127.8.9.1:1": true,
		"0.0.0.0:8766": false, ":8766": false, "192.168.1.2:80": false, "example.com:80": false, "127.0.0.1": false,
	} {
		if got := view.LoopbackListen(addr); got != want {
			t.Errorf("LoopbackListen(%q) = %v, want %v", addr, got, want)
		}
	}
}

// A page of another site rebound to 127.0.0.1 arrives with its own Host:
// refused; loopback names pass.
func TestLoopbackOnlyRefusesOtherHosts(t *testing.T) {
	h := view.LoopbackOnly(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	for host, want := range map[string]int{
		"127.0.0.1:8766": http.StatusNoContent, "localhost": http.StatusNoContent, "[::1]:8766": http.StatusNoContent,
		"evil.example:8766": http.StatusForbidden, "evil.example": http.StatusForbidden, "10.0.0.1": http.StatusForbidden,
	} {
		r := httptest.NewRequest(http.MethodGet, "/view/", nil)
		r.Host = host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("Host %q: %d, want %d", host, w.Code, want)
		}
	}
}
