package server

import (
	"context"
	"net/http"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestIsLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:80": true, "127.1.2.3:80": true, "localhost:80": true, "LOCALHOST:1": true, "[::1]:80": true,
		":80": false, "0.0.0.0:80": false, "[::]:80": false, "10.0.0.1:80": false, "example.com:80": false, "": false,
	} {
		if got := isLoopbackAddr(addr); got != want {
			t.Errorf("%q: got %v", addr, got)
		}
	}
}

func TestTokenSetMatch(t *testing.T) {
	ts := newTokenSet([]Token{{Value: "alpha"}, {Value: "beta", ReadOnly: true}})
	for presented, want := range map[string]struct{ ok, ro bool }{
		"alpha": {true, false}, "beta": {true, true}, "": {false, false}, "alph": {false, false}, "alphaa": {false, false}, "BETA": {false, false},
	} {
		p, ok := ts.match(presented)
		if ok != want.ok || (ok && p.readOnly != want.ro) {
			t.Errorf("%q: ok=%v readOnly=%v", presented, ok, p.readOnly)
		}
	}
}

func TestBearerToken(t *testing.T) {
	for header, want := range map[string]string{"Bearer abc": "abc", "bearer  abc ": "abc", "Basic abc": "", "Bearer": "", "Bearer  ": "", "": ""} {
		r, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "/", nil)
		r.Header.Set("Authorization", header)
		got, problem := bearerToken(r)
		if got != want || (want == "") != (problem != "") {
			t.Errorf("%q: got %q, problem %q", header, got, problem)
		}
	}
}

func TestTokenMatchNamesTheToken(t *testing.T) {
	ts := newTokenSet([]Token{{Value: "a"}, {Value: "b", ReadOnly: true}, {Value: "c"}})
	for presented, want := range map[string]int{"a": 1, "b": 2, "c": 3} {
		if p, ok := ts.match(presented); !ok || p.token != want {
			t.Errorf("%q: token %d, ok %v; want %d", presented, p.token, ok, want)
		}
	}
}

func TestReadOnlyPrincipalFilter(t *testing.T) {
	ro := mcp.NewTool("read", mcp.WithReadOnlyHintAnnotation(true))
	rw := mcp.NewTool("write", mcp.WithReadOnlyHintAnnotation(false))
	unset := mcp.Tool{Name: "unset"}
	all := []mcp.Tool{ro, rw, unset}
	if got := readOnlyPrincipalFilter(context.Background(), all); len(got) != 3 {
		t.Fatalf("no principal: %d tools", len(got))
	}
	if got := readOnlyPrincipalFilter(withPrincipal(context.Background(), principal{}), all); len(got) != 3 {
		t.Fatalf("write principal: %d tools", len(got))
	}
	got := readOnlyPrincipalFilter(withPrincipal(context.Background(), principal{readOnly: true}), all)
	if len(got) != 1 || got[0].Name != "read" {
		t.Fatalf("read-only principal: %v", got)
	}
}
