package embedding

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/builtin"
	"github.com/vaultgraph/vaultgraph/embedding/minilm"
)

// Provider names, the values of the embedding.provider setting.
const (
	ProviderBuiltin = builtin.Name
	ProviderOllama  = "ollama"
	ProviderOpenAI  = "openai"
	ProviderNone    = "none"
)

// Defaults used when the URL or model is left empty.
const (
	DefaultOllamaURL   = "http://127.0.0.1:11434"
	DefaultOllamaModel = "nomic-embed-text"
	DefaultOpenAIURL   = "https://api.openai.com"
	DefaultOpenAIModel = "text-embedding-3-small"
)

// Models of the built-in provider, the values its embedding.model takes.
const (
	// BuiltinTransformer (the default, also for "") is all-MiniLM-L6-v2
	// run in process, with the static table as its fast tier (NewFast).
	BuiltinTransformer = "minilm"
	// BuiltinStatic is the static table alone: thousands of notes a second
	// and no background work, for machines where the transformer is too
	// slow; lower quality (docs/SEARCH.md).
	BuiltinStatic = "static"
)

// New returns the embedder of provider: ProviderBuiltin (also for ""),
// ProviderOllama, ProviderOpenAI, or ProviderNone, which returns (nil, nil):
// semantic search is off. url and model fall back to the provider's
// defaults when empty; apiKey is sent as a bearer token when not empty (an
// OpenAI-compatible server on the local machine usually needs none). The
// built-in provider has no URL and two models, BuiltinTransformer (the
// default) and BuiltinStatic; anything else is an error rather than
// silently ignored. New does not contact the provider.
func New(provider, url, model, apiKey string, opts ...Option) (core.Embedder, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	switch provider {
	case ProviderNone:
		return nil, nil
	case "", ProviderBuiltin:
		switch {
		case url != "":
			return nil, core.InvalidArgument("embedding: the builtin provider takes no url (got %q); unset it or choose ollama or openai", url)
		case model == "" || model == BuiltinTransformer:
			return nonNil(minilm.New())
		case model == BuiltinStatic:
			return nonNil(builtin.New())
		default:
			return nil, core.InvalidArgument("embedding: the builtin provider's model is %s (default) or %s, got %q", BuiltinTransformer, BuiltinStatic, model)
		}
	case ProviderOllama:
		return nonNil(newRemote(ProviderOllama, ollamaWire{}, orDefault(url, DefaultOllamaURL), orDefault(model, DefaultOllamaModel), apiKey, o))
	case ProviderOpenAI:
		return nonNil(newRemote(ProviderOpenAI, openAIWire{}, orDefault(url, DefaultOpenAIURL), orDefault(model, DefaultOpenAIModel), apiKey, o))
	default:
		return nil, core.InvalidArgument("embedding: unknown provider %q, want one of %s, %s, %s, %s",
			provider, ProviderBuiltin, ProviderOllama, ProviderOpenAI, ProviderNone)
	}
}

// nonNil converts a constructor's result to the interface without turning a
// nil pointer into a non-nil interface holding it.
func nonNil[E core.Embedder](e E, err error) (core.Embedder, error) {
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Option tunes a remote provider; the built-in provider ignores options.
type Option func(*options)

type options struct {
	batchSize   int
	timeout     time.Duration
	maxAttempts int
	backoffBase time.Duration
	backoffMax  time.Duration
	maxWait     time.Duration // longest Retry-After that is honoured
	dimension   int
	client      *http.Client
	logger      *slog.Logger
	sleep       func(ctxDone <-chan struct{}, d time.Duration) bool // replaced in tests
}

func defaultOptions() options {
	return options{
		batchSize:   32,
		timeout:     60 * time.Second,
		maxAttempts: 4,
		backoffBase: 500 * time.Millisecond,
		backoffMax:  10 * time.Second,
		maxWait:     60 * time.Second,
		client:      http.DefaultClient,
		logger:      slog.New(slog.DiscardHandler),
		sleep:       sleepCtx,
	}
}

func (o options) validate() error {
	switch {
	case o.batchSize < 1:
		return core.InvalidArgument("embedding: batch size must be at least 1, got %d", o.batchSize)
	case o.maxAttempts < 1:
		return core.InvalidArgument("embedding: attempts must be at least 1, got %d", o.maxAttempts)
	case o.timeout <= 0:
		return core.InvalidArgument("embedding: timeout must be positive, got %s", o.timeout)
	case o.dimension < 0:
		return core.InvalidArgument("embedding: dimension must not be negative, got %d", o.dimension)
	case o.backoffBase <= 0 || o.backoffMax < o.backoffBase:
		return core.InvalidArgument("embedding: backoff must satisfy 0 < base <= max, got %s and %s", o.backoffBase, o.backoffMax)
	}
	return nil
}

// WithBatchSize sets how many texts go into one request (default 32).
func WithBatchSize(n int) Option { return func(o *options) { o.batchSize = n } }

// WithTimeout bounds each HTTP request, retries excluded (default 60s: a
// local model on a CPU can be slow on a full batch).
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithMaxAttempts bounds the tries of one batch, the first included
// (default 4).
func WithMaxAttempts(n int) Option { return func(o *options) { o.maxAttempts = n } }

// WithBackoff sets the wait before the first retry and the cap of the
// exponential backoff (defaults 500ms and 10s). Each wait is drawn between
// half and all of the exponential value (jitter).
func WithBackoff(base, limit time.Duration) Option {
	return func(o *options) { o.backoffBase, o.backoffMax = base, limit }
}

// WithDimension declares the vector length; answers of another length are
// errors. Without it the dimension is learnt from the first answer.
func WithDimension(n int) Option { return func(o *options) { o.dimension = n } }

// WithHTTPClient sets the HTTP client (default http.DefaultClient; proxies
// and TLS come from it).
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.client = c } }

// WithLogger sets where retries are logged (default: nowhere).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func sleepCtx(done <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
		return false
	}
}

// ProbeDimension returns e's vector dimension, embedding a short probe text
// when e has not learnt it yet (a remote provider before its first answer).
// Stores that must size a vector index up front call it once at start-up.
func ProbeDimension(ctx context.Context, e core.Embedder) (int, error) {
	if d := e.Dimension(); d > 0 {
		return d, nil
	}
	vecs, err := e.Embed(ctx, []string{"dimension probe"})
	if err != nil {
		return 0, err
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 {
		return 0, core.NewProviderError("probe "+e.Name()+" embedding dimension", errEmptyProbe)
	}
	return len(vecs[0]), nil
}

var errEmptyProbe = errors.New("the provider returned no vector")
