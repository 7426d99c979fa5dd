package main

import (
	"testing"

	"github.com/vaultgraph/vaultgraph/config"
)

// A server that signs people in with OAuth may listen off loopback
// without static tokens: its web view must not be open to everyone.
func TestViewOfAnOAuthServerIsNeverOpen(t *testing.T) {
	var cfg config.Config
	cfg.HTTP.OAuth.Issuer = "https://login.example.com"
	if auth := viewAuth(&cfg, nil); auth.Open {
		t.Fatal("the view of an OAuth server without tokens is open")
	}
	cfg.HTTP.OAuth.Issuer = ""
	if auth := viewAuth(&cfg, nil); !auth.Open {
		t.Fatal("a loopback server without tokens or OAuth should keep its open view")
	}
}
