package embedding

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

const testKey = "sk-test-SECRET-123"

// fakeServer speaks the Ollama and OpenAI embedding wire formats. Each
// text's vector is [len(text), 1, 0, ...] scaled by 2 (so normalisation is
// visible); respond may override the answer of a request.
type fakeServer struct {
	dim     int
	mu      sync.Mutex
	batches [][]string // inputs of the requests served, in order
	auth    []string   // Authorization headers seen
	respond func(n int, w http.ResponseWriter, texts []string) bool
}

func (f *fakeServer) handler(openAI bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		n := len(f.batches)
		f.batches = append(f.batches, req.Input)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		if f.respond != nil && f.respond(n, w, req.Input) {
			return
		}
		vecs := make([][]float32, len(req.Input))
		for i, text := range req.Input {
			vecs[i] = make([]float32, f.dim)
			vecs[i][0], vecs[i][1] = 2*float32(len(text)), 2
		}
		w.Header().Set("Content-Type", "application/json")
		if !openAI {
			_ = json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": vecs})
			return
		}
		// OpenAI does not promise order: answer in reverse, by index.
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		data := make([]item, 0, len(vecs))
		for i := len(vecs) - 1; i >= 0; i-- {
			data = append(data, item{"embedding", i, vecs[i]})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	})
}

func (f *fakeServer) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.batches)
}

type provider struct {
	name   string
	openAI bool
	path   string
}

var providers = []provider{{ProviderOllama, false, "/api/embed"}, {ProviderOpenAI, true, "/v1/embeddings"}}

// start serves f and returns an embedder for p pointed at it. Sleeps are
// recorded instead of slept.
func start(t *testing.T, p provider, f *fakeServer, opts ...Option) (*remote, *[]time.Duration) {
	t.Helper()
	if f.dim == 0 {
		f.dim = 4
	}
	mux := http.NewServeMux()
	mux.Handle(p.path, f.handler(p.openAI))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	var slept []time.Duration
	var mu sync.Mutex
	opts = append([]Option{WithBackoff(time.Millisecond, 4*time.Millisecond)}, opts...)
	e, err := New(p.name, srv.URL, "test-model", testKey, opts...)
	require.NoError(t, err)
	r := e.(*remote)
	r.opts.sleep = func(done <-chan struct{}, d time.Duration) bool {
		mu.Lock()
		slept = append(slept, d)
		mu.Unlock()
		return sleepCtx(done, time.Millisecond)
	}
	return r, &slept
}

func TestRemoteEmbedsInOrderAndNormalises(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			f := &fakeServer{}
			e, _ := start(t, p, f)
			assert.Equal(t, 0, e.Dimension(), "unknown before the first answer")
			vecs, err := e.Embed(t.Context(), []string{"a", "bbb", "cc"})
			require.NoError(t, err)
			require.Len(t, vecs, 3)
			for i, want := range []float32{1, 3, 2} {
				require.Len(t, vecs[i], 4)
				norm := want*want + 1
				assert.InDelta(t, want/sqrt(norm), vecs[i][0], 1e-6, "vector %d in input order, unit length", i)
			}
			assert.Equal(t, 4, e.Dimension(), "learnt from the answer")
			assert.Equal(t, p.name, e.Name())
			assert.Equal(t, "test-model", e.Model())
			assert.Equal(t, "Bearer "+testKey, f.auth[0])
		})
	}
}

func TestRemoteSplitsBatches(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			f := &fakeServer{}
			e, _ := start(t, p, f, WithBatchSize(2))
			texts := []string{"a", "bb", "", "ccc", "dddd", "eeeee"}
			vecs, err := e.Embed(t.Context(), texts)
			require.NoError(t, err)
			assert.Equal(t, [][]string{{"a", "bb"}, {"ccc", "dddd"}, {"eeeee"}}, f.batches, "blank texts are not sent")
			require.Len(t, vecs, len(texts))
			assert.Equal(t, make([]float32, 4), vecs[2], "blank text gets a zero vector")
			assert.Greater(t, vecs[5][0], vecs[3][0], "order kept across batches")
		})
	}
}

func TestRemoteBlankTextsOnlyProbeTheDimension(t *testing.T) {
	f := &fakeServer{dim: 3}
	e, _ := start(t, providers[0], f)
	vecs, err := e.Embed(t.Context(), []string{"", "  "})
	require.NoError(t, err)
	assert.Equal(t, [][]float32{{0, 0, 0}, {0, 0, 0}}, vecs)
	assert.Equal(t, 1, f.requests(), "one probe to learn the dimension")
	_, err = e.Embed(t.Context(), []string{""})
	require.NoError(t, err)
	assert.Equal(t, 1, f.requests(), "no probe once the dimension is known")
}

func TestRemoteRetriesTooManyRequestsHonouringRetryAfter(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			f := &fakeServer{respond: func(n int, w http.ResponseWriter, _ []string) bool {
				if n == 0 {
					w.Header().Set("Retry-After", "2")
					http.Error(w, `{"error":"rate limited"}`, http.StatusTooManyRequests)
					return true
				}
				return false
			}}
			e, slept := start(t, p, f)
			vecs, err := e.Embed(t.Context(), []string{"hello"})
			require.NoError(t, err)
			assert.Len(t, vecs, 1)
			assert.Equal(t, 2, f.requests())
			assert.Equal(t, []time.Duration{2 * time.Second}, *slept, "waited as long as Retry-After said")
		})
	}
}

func TestRemoteGivesUpAfterMaxAttemptsNamingURLAndModel(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			f := &fakeServer{respond: func(_ int, w http.ResponseWriter, _ []string) bool {
				http.Error(w, `{"error":"model runner crashed"}`, http.StatusInternalServerError)
				return true
			}}
			e, slept := start(t, p, f, WithMaxAttempts(3), WithBackoff(100*time.Millisecond, 150*time.Millisecond))
			_, err := e.Embed(t.Context(), []string{"hello"})
			require.Error(t, err)
			assert.True(t, core.IsProviderError(err))
			assert.Equal(t, 3, f.requests())
			msg := err.Error()
			assert.Contains(t, msg, e.endpoint)
			assert.Contains(t, msg, `"test-model"`)
			assert.Contains(t, msg, "HTTP 500")
			assert.Contains(t, msg, "model runner crashed")
			assert.Contains(t, msg, "3 attempts")
			require.Len(t, *slept, 2)
			// Backoff: 100ms then 200ms capped at 150ms, each with jitter down to half.
			assert.GreaterOrEqual(t, (*slept)[0], 50*time.Millisecond)
			assert.LessOrEqual(t, (*slept)[0], 100*time.Millisecond)
			assert.GreaterOrEqual(t, (*slept)[1], 75*time.Millisecond)
			assert.LessOrEqual(t, (*slept)[1], 150*time.Millisecond)
		})
	}
}

func TestRemoteDoesNotRetryClientErrors(t *testing.T) {
	f := &fakeServer{respond: func(_ int, w http.ResponseWriter, _ []string) bool {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+testKey+`","type":"invalid_request_error"}}`)
		return true
	}}
	e, _ := start(t, providers[1], f)
	_, err := e.Embed(t.Context(), []string{"hello"})
	require.Error(t, err)
	assert.Equal(t, 1, f.requests())
	assert.Contains(t, err.Error(), "HTTP 401: Incorrect API key provided: [redacted]")
	assert.NotContains(t, err.Error(), testKey)
}

func TestRemoteRejectsMalformedAnswers(t *testing.T) {
	cases := map[string]string{
		"not json":       `{"embeddings": [[1, 2`,
		"wrong count":    `{"embeddings": [[1, 2]], "data": [{"index": 0, "embedding": [1, 2]}]}`,
		"ragged vectors": `{"embeddings": [[1, 2], [1]], "data": [{"index": 0, "embedding": [1, 2]}, {"index": 1, "embedding": [1]}]}`,
		"no field":       `{"model": "x"}`,
	}
	for _, p := range providers {
		for name, body := range cases {
			t.Run(p.name+" "+name, func(t *testing.T) {
				f := &fakeServer{respond: func(_ int, w http.ResponseWriter, _ []string) bool {
					_, _ = io.WriteString(w, body)
					return true
				}}
				e, _ := start(t, p, f)
				_, err := e.Embed(t.Context(), []string{"one", "two"})
				require.Error(t, err)
				assert.True(t, core.IsProviderError(err))
				assert.Contains(t, err.Error(), e.endpoint)
				assert.Equal(t, 1, f.requests(), "a malformed answer is not retried")
			})
		}
	}
}

func TestOpenAIRejectsBadIndexes(t *testing.T) {
	for name, body := range map[string]string{
		"duplicate": `{"data": [{"index": 0, "embedding": [1]}, {"index": 0, "embedding": [1]}]}`,
		"missing":   `{"data": [{"embedding": [1]}, {"index": 0, "embedding": [1]}]}`,
		"too large": `{"data": [{"index": 0, "embedding": [1]}, {"index": 2, "embedding": [1]}]}`,
	} {
		_, err := openAIWire{}.decode([]byte(body))
		assert.Error(t, err, name)
	}
}

func TestRemoteEnforcesConfiguredDimension(t *testing.T) {
	f := &fakeServer{dim: 4}
	e, _ := start(t, providers[0], f, WithDimension(8))
	assert.Equal(t, 8, e.Dimension())
	_, err := e.Embed(t.Context(), []string{"x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "got 4-dimensional vectors, want 8")
}

func TestRemoteStopsWhenContextEnds(t *testing.T) {
	release := make(chan struct{})
	f := &fakeServer{respond: func(_ int, _ http.ResponseWriter, _ []string) bool {
		<-release
		return true
	}}
	e, _ := start(t, providers[1], f)
	t.Cleanup(func() { close(release) }) // before the server's Close, which waits for handlers
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	began := time.Now()
	_, err := e.Embed(ctx, []string{"x"})
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.True(t, core.IsProviderError(err))
	assert.Less(t, time.Since(began), 5*time.Second, "returns when the context ends, no retry")
	assert.Equal(t, 1, f.requests())
}

func TestRemoteRetriesRequestTimeouts(t *testing.T) {
	release := make(chan struct{})
	f := &fakeServer{respond: func(n int, _ http.ResponseWriter, _ []string) bool {
		if n == 0 {
			<-release // the first request hangs past the per-request timeout
			return true
		}
		return false
	}}
	e, _ := start(t, providers[0], f, WithTimeout(100*time.Millisecond))
	t.Cleanup(func() { close(release) })
	vecs, err := e.Embed(t.Context(), []string{"x"})
	require.NoError(t, err)
	assert.Len(t, vecs, 1)
	assert.Equal(t, 2, f.requests())
}

func TestRemoteRetriesNetworkErrors(t *testing.T) {
	// A listener that accepts and hangs up at once: every request fails in
	// transport.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	var logs bytes.Buffer
	url := fmt.Sprintf("http://user:hunter2@%s", ln.Addr())
	e, err := New(ProviderOpenAI, url, "m", testKey,
		WithMaxAttempts(2), WithBackoff(time.Millisecond, time.Millisecond),
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	require.NoError(t, err)
	_, err = e.Embed(t.Context(), []string{"x"})
	require.Error(t, err)
	assert.True(t, core.IsProviderError(err))
	assert.Contains(t, err.Error(), "2 attempts")
	assert.Contains(t, err.Error(), ln.Addr().String()+"/v1/embeddings")
	for _, secret := range []string{testKey, "hunter2"} {
		assert.NotContains(t, err.Error(), secret)
		assert.NotContains(t, logs.String(), secret)
	}
	assert.Contains(t, logs.String(), "retrying", "the retry is logged")
}

func TestRemoteRefusesRetryAfterBeyondLimit(t *testing.T) {
	f := &fakeServer{respond: func(_ int, w http.ResponseWriter, _ []string) bool {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	}}
	e, slept := start(t, providers[0], f)
	_, err := e.Embed(t.Context(), []string{"x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "retry after 1h0m0s")
	assert.Empty(t, *slept)
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	assert.Equal(t, 5*time.Second, retryAfter("5", now))
	assert.Equal(t, 30*time.Second, retryAfter(now.Add(30*time.Second).Format(http.TimeFormat), now))
	assert.Zero(t, retryAfter("", now))
	assert.Zero(t, retryAfter("soon", now))
	assert.Zero(t, retryAfter(now.Add(-time.Minute).Format(http.TimeFormat), now))
}

func TestOpenAIPathDoesNotRepeatV1(t *testing.T) {
	for base, want := range map[string]string{
		"http://localhost:1234":     "http://localhost:1234/v1/embeddings",
		"http://localhost:1234/v1/": "http://localhost:1234/v1/embeddings",
		"https://host/proxy":        "https://host/proxy/v1/embeddings",
	} {
		e, err := New(ProviderOpenAI, base, "", "")
		require.NoError(t, err)
		assert.Equal(t, want, e.(*remote).endpoint)
	}
}

func sqrt(x float32) float32 {
	// Newton's method is plenty for test expectations.
	z := x
	for range 30 {
		z -= (z*z - x) / (2 * z)
	}
	return z
}
