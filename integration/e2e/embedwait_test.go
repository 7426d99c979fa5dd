package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/internal/testwait"
)

// blockingEmbedder is an Ollama-compatible embedding service whose
// answers wait until release is closed: the first pass of vectors runs as
// long as the test wants.
type blockingEmbedder struct {
	started  chan struct{} // closed at the first request
	release  chan struct{}
	once     sync.Once
	mu       sync.Mutex
	given    int // requests given up by their client before release
	answered int
}

func newBlockingEmbedder(t *testing.T) (*blockingEmbedder, *httptest.Server) {
	b := &blockingEmbedder{started: make(chan struct{}), release: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(func() {
		b.open()
		srv.Close()
	})
	return b, srv
}

func (b *blockingEmbedder) open() {
	select {
	case <-b.release:
	default:
		close(b.release)
	}
}

func (b *blockingEmbedder) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	b.once.Do(func() { close(b.started) })
	select {
	case <-b.release:
	case <-r.Context().Done():
		b.mu.Lock()
		b.given++
		b.mu.Unlock()
		return
	}
	vecs := make([][]float32, len(req.Input))
	for i, text := range req.Input {
		v := make([]float32, 8)
		for j, c := range text {
			v[(j+int(c))%8] += 1
		}
		v[0] += 0.5 // never a zero vector
		vecs[i] = v
	}
	b.mu.Lock()
	b.answered++
	b.mu.Unlock()
	_ = json.NewEncoder(w).Encode(map[string]any{"embeddings": vecs})
}

// Issue 49.2: a read that needs no vectors answers once the graph is
// synced, while the first pass of vectors is still running (here: held
// by the embedding service), and a search answers once the pass is done.
func TestReadsDoNotWaitForEmbedding(t *testing.T) {
	t.Parallel()
	emb, srv := newBlockingEmbedder(t)
	st := embeddedStore(t)
	vault := copyVault(t, nil)
	env := processEnv(t, st, "VAULTGRAPH_EMBEDDING_PROVIDER=ollama", "VAULTGRAPH_EMBEDDING_URL="+srv.URL, "VAULTGRAPH_EMBEDDING_MODEL=blocking")
	c, _ := stdioClient(t, env, append([]string{"serve", "--vault", vault}, st.args...))
	initialize(t, c)
	testwait.Recv(t, emb.started, "the first pass's embedding request") // the first pass is running, and waits

	// A read with a progress token waits for the first sync, and only for
	// it: it answers without the "still syncing" notice while the pass is
	// held (before issue 49 it waited for the pass, at most 20 s, past
	// its own 15 s bound).
	ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "get_node"
	req.Params.Arguments = map[string]any{"id": "home.md"}
	req.Params.Meta = &mcp.Meta{ProgressToken: "read"}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	r := toReply(t, "get_node", res)
	if r.isError || !strings.Contains(r.text, `"id":"home.md"`) || strings.Contains(r.text, "still syncing") {
		t.Fatalf("get_node during the first pass answered %.300s", r.text)
	}
	emb.mu.Lock()
	given, answered := emb.given, emb.answered
	emb.mu.Unlock()
	if given != 0 || answered != 0 {
		t.Fatalf("the read answered after the pass gave up or went on (%d requests given up, %d answered): it waited for the pass", given, answered)
	}

	emb.open()
	var hits []searchHit
	callTool(t, c, "search", map[string]any{"query": "home"}).decode(t, &hits)
	if len(hits) == 0 {
		t.Fatal("search after the first pass found nothing")
	}
}
