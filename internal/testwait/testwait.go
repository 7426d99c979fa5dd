// Package testwait bounds a test's wait for an event. A bare receive
// (<-ch) whose event never comes, because of the bug under test, blocks
// until go test's -timeout ends the whole package (25 minutes in make
// test), and CI learns nothing in the meantime. Recv and Wait fail the
// test instead after Limit, with every goroutine's stack, so the hang
// costs minutes and shows where it is.
//
// Limit is far beyond any wait that ends: the events these tests wait for
// take milliseconds, seconds on a machine loaded far beyond CI. A test
// must not use it to time anything.
package testwait

import (
	"bytes"
	"runtime/pprof"
	"sync"
	"testing"
	"time"
)

// Limit bounds each wait.
const Limit = 5 * time.Minute

// Recv returns the next value received from ch (the zero value once ch is
// closed, as <-ch), or fails t when none comes within Limit. what names
// the event for the failure message ("the owner's connection").
func Recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	timer := time.NewTimer(Limit)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("testwait: no %s within %s: a hang. Goroutines:\n%s", what, Limit, Stacks())
		var zero T
		return zero
	}
}

// Wait waits for wg, or fails t when it is not done within Limit.
func Wait(t testing.TB, wg *sync.WaitGroup, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	Recv(t, done, what)
}

// Stacks returns every goroutine's stack, as a panic prints them.
func Stacks() string {
	var b bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&b, 2)
	return b.String()
}
