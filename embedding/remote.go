package embedding

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// maxResponseBytes bounds what is read of an answer: a batch of 32 vectors
// of 4096 floats is about 3 MB of JSON.
const maxResponseBytes = 64 << 20

// wire is one provider's request and response format.
type wire interface {
	// path is appended to the base URL to give the endpoint.
	path(base *url.URL) string
	encode(model string, texts []string) ([]byte, error)
	// decode returns the vectors in the order of the request's texts.
	decode(body []byte) ([][]float32, error)
	// errorMessage extracts the server's explanation from an error body.
	errorMessage(body []byte) string
}

// remote is a core.Embedder over an HTTP embedding service.
type remote struct {
	name     string
	model    string
	endpoint string // full URL, for requests
	shown    string // endpoint with any user:password redacted, for errors and logs
	apiKey   string
	wire     wire
	opts     options
	dim      atomic.Int64
}

func newRemote(name string, w wire, rawURL, model, apiKey string, o options) (*remote, error) {
	base, err := url.Parse(strings.TrimRight(rawURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, core.InvalidArgument("embedding: %s url %q is not an http(s) URL", name, rawURL)
	}
	endpoint, err := url.Parse(w.path(base))
	if err != nil {
		return nil, core.InvalidArgument("embedding: %s url %q: %v", name, rawURL, err)
	}
	r := &remote{
		name: name, model: model, endpoint: endpoint.String(), shown: endpoint.Redacted(),
		apiKey: apiKey, wire: w, opts: o,
	}
	r.dim.Store(int64(o.dimension))
	return r, nil
}

// Name returns the provider name.
func (r *remote) Name() string { return r.name }

// Model returns the model name sent to the service.
func (r *remote) Model() string { return r.model }

// Dimension is the configured dimension, or the one learnt from the first
// answer; 0 before that.
func (r *remote) Dimension() int { return int(r.dim.Load()) }

// Embed sends the non-blank texts in batches and returns one normalised
// vector per text; blank texts get zero vectors without a request
// (OpenAI rejects empty input).
func (r *remote) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var pending []int // indexes of texts to send
	for i, t := range texts {
		if strings.TrimSpace(t) != "" {
			pending = append(pending, i)
		}
	}
	for start := 0; start < len(pending); start += r.opts.batchSize {
		idx := pending[start:min(start+r.opts.batchSize, len(pending))]
		batch := make([]string, len(idx))
		for j, i := range idx {
			batch[j] = texts[i]
		}
		vecs, err := r.embedBatch(ctx, batch)
		if err != nil {
			return nil, core.NewProviderError(
				fmt.Sprintf("embed %d texts with %s model %q at %s", len(batch), r.name, r.model, r.shown), err)
		}
		for j, i := range idx {
			out[i] = vecs[j]
		}
	}
	if len(pending) < len(texts) {
		dim, err := r.resolveDimension(ctx)
		if err != nil {
			return nil, err
		}
		for i := range out {
			if out[i] == nil {
				out[i] = make([]float32, dim)
			}
		}
	}
	return out, nil
}

// resolveDimension returns the dimension, embedding a probe text when it
// is not known yet.
func (r *remote) resolveDimension(ctx context.Context) (int, error) {
	return ProbeDimension(ctx, r)
}

// embedBatch posts one batch, retrying transient failures, and checks and
// normalises the answer.
func (r *remote) embedBatch(ctx context.Context, batch []string) ([][]float32, error) {
	body, err := r.wire.encode(r.model, batch)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	for attempt := 1; ; attempt++ {
		vecs, retryAfter, err := r.post(ctx, body)
		if err == nil {
			return r.check(vecs, len(batch))
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("attempt %d: %w", attempt, ctx.Err())
		}
		var perm *permanentError
		if errors.As(err, &perm) {
			return nil, fmt.Errorf("attempt %d: %w", attempt, err)
		}
		if attempt >= r.opts.maxAttempts {
			return nil, fmt.Errorf("gave up after %d attempts: %w", attempt, err)
		}
		wait := r.backoff(attempt)
		if retryAfter > 0 {
			if retryAfter > r.opts.maxWait {
				return nil, fmt.Errorf("attempt %d: server asks to retry after %s, longer than %s: %w", attempt, retryAfter, r.opts.maxWait, err)
			}
			wait = max(wait, retryAfter)
		}
		r.opts.logger.Warn("embedding request failed, retrying",
			"provider", r.name, "url", r.shown, "model", r.model,
			"attempt", attempt, "wait_s", wait.Seconds(), "err", err)
		if !r.opts.sleep(ctx.Done(), wait) {
			return nil, fmt.Errorf("attempt %d: %w", attempt, ctx.Err())
		}
	}
}

// backoff is the exponential wait before retry number attempt (1-based),
// capped, with "equal jitter": between half and all of it.
func (r *remote) backoff(attempt int) time.Duration {
	d := float64(r.opts.backoffBase) * math.Pow(2, float64(attempt-1))
	d = math.Min(d, float64(r.opts.backoffMax))
	return time.Duration(d/2 + rand.Float64()*d/2)
}

// permanentError is a failure a retry cannot fix (a 4xx other than 408 and
// 429, a malformed answer).
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// post sends one request. It returns the decoded vectors, or an error and,
// for 429 and 503, the wait the server asked for.
func (r *remote) post(ctx context.Context, body []byte) ([][]float32, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, 0, &permanentError{fmt.Errorf("build request: %w", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if r.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+r.apiKey)
	}
	resp, err := r.opts.client.Do(req)
	if err != nil {
		// Transport errors name the URL; r.endpoint may hold credentials.
		return nil, 0, fmt.Errorf("request failed: %w", scrubURL(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, 0, fmt.Errorf("read response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("HTTP %d%s", resp.StatusCode, describe(r.redact(r.wire.errorMessage(data))))
		if retryable(resp.StatusCode) {
			return nil, retryAfter(resp.Header.Get("Retry-After"), time.Now()), err
		}
		return nil, 0, &permanentError{err}
	}
	vecs, err := r.wire.decode(data)
	if err != nil {
		return nil, 0, &permanentError{fmt.Errorf("malformed response: %w", err)}
	}
	return vecs, 0, nil
}

// redact removes the API key from a server's message, in case it echoes it.
func (r *remote) redact(msg string) string {
	if r.apiKey == "" {
		return msg
	}
	return strings.ReplaceAll(msg, r.apiKey, "[redacted]")
}

// check validates an answer for n texts, learns or enforces the dimension
// and normalises the vectors.
func (r *remote) check(vecs [][]float32, n int) ([][]float32, error) {
	if len(vecs) != n {
		return nil, &permanentError{fmt.Errorf("got %d vectors for %d texts", len(vecs), n)}
	}
	dim := len(vecs[0])
	if dim == 0 {
		return nil, &permanentError{errors.New("got an empty vector")}
	}
	for i, v := range vecs {
		if len(v) != dim {
			return nil, &permanentError{fmt.Errorf("vector %d has %d dimensions, vector 0 has %d", i, len(v), dim)}
		}
		normalize(v)
	}
	if !r.dim.CompareAndSwap(0, int64(dim)) {
		if want := r.Dimension(); want != dim {
			return nil, &permanentError{fmt.Errorf("got %d-dimensional vectors, want %d", dim, want)}
		}
	}
	return vecs, nil
}

func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500
}

// retryAfter parses a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(h string, now time.Time) time.Duration {
	if h == "" {
		return 0
	}
	if secs, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && secs > 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// describe formats a server's error message for an error string, cut to a
// readable length.
func describe(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return ""
	}
	if r := []rune(msg); len(r) > 300 {
		msg = string(r[:300]) + "..."
	}
	return ": " + msg
}

// scrubURL removes the URL a *url.Error carries, keeping its operation and
// cause, so that credentials in the URL do not reach errors.
func scrubURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s: %w", strings.ToLower(ue.Op), ue.Err)
	}
	return err
}

// normalize scales v to unit length in place; a zero vector stays zero.
func normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := 1 / math.Sqrt(sum)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
}
