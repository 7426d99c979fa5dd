package neo4jstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
)

// A frozen Neo4j (SIGSTOP: the port accepts, nothing answers) costs the
// first call its timeout; the breaker then opens, and every later call
// fails at once with the breaker's error (its own timeout would give
// another) while the server is still frozen. After SIGCONT the probe
// closes the breaker and calls go through again. On a Neo4j of its own
// (it freezes it), beside the other tests.
func TestBreakerFailsFastWhileNeo4jIsFrozen(t *testing.T) {
	t.Parallel()
	srv := neo4jtest.StartLocal(t, neo4jtest.LocalOptions{})
	const timeout = time.Minute
	s := openStoreWith(t, func(c *Config) {
		c.URI, c.User, c.Password, c.Database = srv.URI, srv.User, srv.Password, srv.Database
		c.Timeout = timeout
		c.MaxRetryTime = time.Second
		c.ProbeInterval = 500 * time.Millisecond
		c.Logger = slog.New(slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	project := fmt.Sprintf("freeze-%d", rand.Uint64())
	ctx := t.Context()
	a := core.Note{ID: "a.md", Title: "A", Keys: []string{"a"}, Links: []core.Link{{Raw: "[[b]]", Key: "b", Target: "b.md"}}}
	b := core.Note{ID: "b.md", Title: "B", Keys: []string{"b"}}
	require.NoError(t, s.UpsertNotes(ctx, project, []core.Note{a, b}))

	require.NoError(t, srv.Freeze(t))
	frozen := time.Now()
	// The first call waits for the server until the breaker opens (its
	// watchdog suspects the server after ConnectTimeout and a probe
	// fails) and cancels it, or until its own timeout.
	_, err := s.GetNote(ctx, project, "a.md")
	require.Error(t, err)
	require.True(t, core.IsProviderError(err), "%v", err)
	deadline := time.Now().Add(2 * time.Minute)
	for !s.BreakerOpen() {
		require.True(t, time.Now().Before(deadline), "the breaker did not open while Neo4j was frozen")
		_, _ = s.CountNotes(ctx, project)
		time.Sleep(100 * time.Millisecond)
	}
	opened := time.Since(frozen)
	// Every store method, one after another: each answers the breaker's
	// error, so none waited for the frozen server. Their total stays
	// below one call's timeout (16 calls that each waited it would take
	// over 5 minutes).
	start := time.Now()
	for name, call := range calls(s, project) {
		err := call(ctx)
		var un *core.UnavailableError
		require.ErrorAs(t, err, &un, "%s while frozen", name)
		require.True(t, core.IsProviderError(err), "%s: %v", name, err)
		require.False(t, errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled), "%s: %v looks like the caller's cancellation", name, err)
		require.Contains(t, un.Hint(), "retry", name)
	}
	failFast := time.Since(start)
	require.Less(t, failFast, timeout, "the calls of a frozen server waited for it")
	require.True(t, s.BreakerOpen(), "still frozen: the breaker must still be open")

	require.NoError(t, srv.Thaw(t))
	thawed := time.Now()
	deadline = time.Now().Add(2 * time.Minute)
	for {
		if _, err := s.GetNote(ctx, project, "a.md"); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "no recovery after SIGCONT")
		time.Sleep(100 * time.Millisecond)
	}
	recovered := time.Since(thawed)
	for name, call := range calls(s, project) {
		require.NoError(t, call(ctx), "%s after SIGCONT", name)
	}
	t.Logf("frozen: breaker open after %s, %d calls failed fast in %s, a call went through %s after SIGCONT",
		opened.Round(time.Millisecond), len(calls(s, project)), failFast.Round(time.Microsecond), recovered.Round(time.Millisecond))
}

// A slow statement that hits its timeout on a healthy server does not
// open the breaker: the probe it sets off is answered.
func TestBreakerStaysClosedWhenTheServerAnswers(t *testing.T) {
	s := openStore(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	_, err := s.CountNotes(ctx, "slow")
	require.Error(t, err)
	// Let the probe it may have started finish.
	deadline := time.Now().Add(time.Minute)
	for {
		s.brk.mu.Lock()
		busy := s.brk.probing
		s.brk.mu.Unlock()
		if !busy {
			break
		}
		require.True(t, time.Now().Before(deadline))
		time.Sleep(10 * time.Millisecond)
	}
	require.False(t, s.BreakerOpen())
	_, err = s.CountNotes(t.Context(), "slow")
	require.NoError(t, err)
}

func TestCheckServerVersion(t *testing.T) {
	for v, ok := range map[string]bool{
		"5.26.0": true, "5.24.0": true, "5.24.2-aura": true, "5.27-aura": true,
		"2025.01.0": true, "2026.3.1": true, "6.0.0": true,
		"5.23.0": false, "5.20.0": false, "5.0.0": false, "4.4.30": false, "4.4": false,
		"": true, "dev": true, // unreadable: the server has the last word
	} {
		err := checkServerVersion(v)
		if ok {
			require.NoError(t, err, v)
			continue
		}
		require.ErrorIs(t, err, ErrServerTooOld, v)
		require.Contains(t, err.Error(), MinServerVersion, v)
		require.Contains(t, err.Error(), v)
		require.Equal(t, "Neo4j server too old", Problem(err))
	}
}

// The real server passes the version check at Open, and Status reports
// a version at or above the floor.
func TestRealServerPassesVersionFloor(t *testing.T) {
	s := openStore(t)
	st, err := s.Status(t.Context())
	require.NoError(t, err)
	require.NoError(t, checkServerVersion(st.ServerVersion))
	major, minor, ok := parseVersion(st.ServerVersion)
	require.True(t, ok, st.ServerVersion)
	require.True(t, major > 5 || major == 5 && minor >= 24, st.ServerVersion)
}

// A port that is not Bolt is named as such, within the handshake bound,
// not after the call's timeout: an HTTP server, a silent listener, one
// that closes at once.
func TestOpenNamesANonBoltPort(t *testing.T) {
	for name, serve := range map[string]func(net.Conn){
		"http": func(c net.Conn) {
			buf := make([]byte, 64)
			_, _ = c.Read(buf)
			_, _ = c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))
		},
		"silent": func(c net.Conn) {
			buf := make([]byte, 64)
			for {
				if _, err := c.Read(buf); err != nil {
					return
				}
			}
		},
		"closes": func(net.Conn) {},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			var wg sync.WaitGroup
			t.Cleanup(func() { ln.Close(); wg.Wait() })
			wg.Go(func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					wg.Go(func() { defer c.Close(); serve(c) })
				}
			})
			for _, ro := range []bool{true, false} {
				_, err = Open(t.Context(), Config{URI: "bolt://" + ln.Addr().String(), Timeout: 5 * time.Minute, ReadOnlySchema: ro, Lazy: !ro})
				require.ErrorIs(t, err, ErrNotBolt)
				require.Equal(t, "not a Bolt server", Problem(err))
			}
		})
	}
}

// tlog is an io.Writer onto t.Log.
type tlog struct{ t testing.TB }

func (w tlog) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }
