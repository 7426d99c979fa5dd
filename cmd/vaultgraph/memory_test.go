package main

import (
	"io"
	"log/slog"
	"runtime/debug"
	"testing"
)

func TestBoundHeapHeadroomKeepsTheUsersSetting(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, tc := range []struct {
		env, value string
		want       int
	}{
		{"GOGC", "", longLivedGCPercent},
		{"GOGC", "300", 100},
		{"GOMEMLIMIT", "1GiB", 100},
	} {
		t.Setenv("GOGC", "")
		t.Setenv("GOMEMLIMIT", "")
		t.Setenv(tc.env, tc.value)
		debug.SetGCPercent(100)
		boundHeapHeadroom(logger)
		if got := debug.SetGCPercent(100); got != tc.want {
			t.Errorf("%s=%q: GC percent %d, want %d", tc.env, tc.value, got, tc.want)
		}
	}
}
