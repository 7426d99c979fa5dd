package core

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorsMatchThroughWrapping(t *testing.T) {
	wrapped := fmt.Errorf("memstore: get note %s: %w", "a.md", ErrNotFound)
	if !errors.Is(wrapped, ErrNotFound) || errors.Is(wrapped, ErrExists) {
		t.Fatal("ErrNotFound must survive wrapping and not match ErrExists")
	}
	if !errors.Is(fmt.Errorf("vault: %w", ErrInvalidPath), ErrInvalidArgument) {
		t.Fatal("ErrInvalidPath must be an invalid argument")
	}
	arg := fmt.Errorf("graph: %w", InvalidArgument("limit %d is above %d", 51, 50))
	var ae *ArgumentError
	if !errors.Is(arg, ErrInvalidArgument) || !errors.As(arg, &ae) || ae.Msg != "limit 51 is above 50" {
		t.Fatalf("argument error lost its message or identity: %v", arg)
	}
	cause := errors.New("connection refused")
	pe := fmt.Errorf("neo4jstore: upsert: %w", NewProviderError("upsert notes", cause))
	if !IsProviderError(pe) || !errors.Is(pe, cause) || IsProviderError(arg) {
		t.Fatal("provider errors must be detectable and unwrap to their cause")
	}
	if NewProviderError("x", nil) != nil {
		t.Fatal("nil cause must give nil")
	}
}

func TestNoteHelpers(t *testing.T) {
	n := Note{Tags: []string{"ML", "Go/Lang"}, Links: []Link{{Target: "b.md"}, {Key: "x"}, {Target: "b.md"}, {Target: "c.md"}}}
	if !n.HasTag("#ml") || !n.HasTag("go/lang") || n.HasTag("go") {
		t.Fatal("HasTag must compare case-insensitively and exactly")
	}
	got := n.LinkTargets()
	if len(got) != 2 || got[0] != "b.md" || got[1] != "c.md" {
		t.Fatalf("LinkTargets = %v", got)
	}
	if !DirectionBoth.Valid() || Direction("up").Valid() || !TagModeAll.Valid() || TagMode("x").Valid() || !MetricPageRank.Valid() || HubMetric("x").Valid() {
		t.Fatal("enum validation wrong")
	}
}

func TestAnInvalidPathErrorIsAnInvalidArgument(t *testing.T) {
	err := fmt.Errorf("vault: check x: %w", &InvalidPathError{Name: "x", Why: "it is a symbolic link"})
	if !errors.Is(err, ErrInvalidPath) || !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("%v is not an invalid path and argument", err)
	}
}
