package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
)

// encodeBuffers are reused by EncodeJSON: an answer is encoded into a
// pooled buffer and copied out once at its exact size, instead of growing a
// new buffer from nothing for each 30 KB answer.
var encodeBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// appendBuffers are EncodeJSON's buffers for a JSONAppender.
var appendBuffers = sync.Pool{New: func() any { return new([]byte) }}

// EncodeJSON encodes a tool's answer compactly without escaping <, > and &
// (note content is markdown, and \u003c helps no model), as the result's
// text and as its structured content. The two share one copy of the bytes:
// the text is a string view of raw, which nobody writes to afterwards. The
// answer types always encode; a failure is a programming error in the data
// a handler built, and panics (the server's recovery answers it).
func EncodeJSON(v any) (text string, raw json.RawMessage) {
	if a, ok := v.(JSONAppender); ok {
		b := appendBuffers.Get().(*[]byte)
		out := a.AppendJSON((*b)[:0])
		raw = bytes.Clone(out)
		if cap(out) <= 1<<20 { // one huge answer does not pin its buffer
			*b = out[:0]
		}
		appendBuffers.Put(b)
		return rawText(raw), raw
	}
	buf := encodeBuffers.Get().(*bytes.Buffer)
	defer encodeBuffers.Put(buf)
	buf.Reset()
	if err := encodeStd(buf, v); err != nil {
		panic(fmt.Sprintf("tools: encode %T: %v", v, err))
	}
	raw = bytes.Clone(buf.Bytes())
	if buf.Cap() > 1<<20 { // one huge answer does not pin its buffer
		buf.Reset()
		*buf = bytes.Buffer{}
	}
	return rawText(raw), raw
}

// answerBufferKey is the context key of a call's answerBuffer.
type answerBufferKey struct{}

// answerBuffer holds the encoded answer of one call for the transport
// that writes it (see WithAnswerBuffer).
type answerBuffer struct {
	mu   sync.Mutex
	buf  *[]byte
	done bool // released: later answers are copies of their own
}

// WithAnswerBuffer lets the call served with the returned context encode
// its answer (EncodeAnswer) into a pooled buffer instead of a copy of its
// own, and returns the function that ends this. A transport calls it once
// it has encoded the call's answer, written: the buffer goes back to the
// pool only when written is the result that holds it (its text and
// structured content are views of the buffer), which the transport has
// encoded and keeps no reference to. Otherwise (no answer, another
// result, a tool still running after its call was answered) the buffer
// is left to the garbage collector. A read tool's answer is tens of KB,
// and its copy was the largest garbage a call left (each allocation
// during a collection also costs the caller marking work).
func WithAnswerBuffer(ctx context.Context) (context.Context, func(written *mcp.CallToolResult)) {
	ab := &answerBuffer{}
	return context.WithValue(ctx, answerBufferKey{}, ab), ab.release
}

func (ab *answerBuffer) release(written *mcp.CallToolResult) {
	ab.mu.Lock()
	defer ab.mu.Unlock()
	ab.done = true
	if ab.buf == nil || !holds(written, *ab.buf) {
		return
	}
	if cap(*ab.buf) <= 1<<20 { // one huge answer does not pin its buffer
		*ab.buf = (*ab.buf)[:0]
		appendBuffers.Put(ab.buf)
	}
	ab.buf = nil
}

// holds reports whether res's text or structured content is a view of b.
func holds(res *mcp.CallToolResult, b []byte) bool {
	if res == nil || len(b) == 0 {
		return false
	}
	if raw, ok := res.StructuredContent.(json.RawMessage); ok && len(raw) > 0 && &raw[0] == &b[0] {
		return true
	}
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok && len(t.Text) > 0 && unsafe.StringData(t.Text) == &b[0] {
			return true
		}
	}
	return false
}

// EncodeAnswer is EncodeJSON for the answer of the call served with ctx:
// when its transport gave it an answer buffer (WithAnswerBuffer) and v
// encodes itself, the text and raw are views of that buffer, valid until
// the transport releases it. Otherwise, and for any second answer of the
// call, it is EncodeJSON.
func EncodeAnswer(ctx context.Context, v any) (text string, raw json.RawMessage) {
	ab, _ := ctx.Value(answerBufferKey{}).(*answerBuffer)
	a, ok := v.(JSONAppender)
	if ab == nil || !ok {
		return EncodeJSON(v)
	}
	ab.mu.Lock()
	defer ab.mu.Unlock()
	if ab.buf != nil || ab.done {
		return EncodeJSON(v)
	}
	b := appendBuffers.Get().(*[]byte)
	out := a.AppendJSON((*b)[:0])
	*b = out
	ab.buf = b
	raw = out[:len(out):len(out)] // an append to raw never writes into the buffer
	return rawText(raw), raw
}

// StdJSON is what encoding/json writes for v as EncodeJSON uses it:
// compact, without HTML escaping, no trailing newline. Every JSONAppender
// must write exactly this; their tests compare the two.
func StdJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	err := encodeStd(&buf, v)
	return buf.Bytes(), err
}

// encodeStd writes StdJSON(v) to buf.
func encodeStd(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode ends with a newline
	return nil
}

// rawText is a string view of raw, which nobody writes to.
func rawText(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	return unsafe.String(&raw[0], len(raw))
}

// AddJSONField returns the JSON object obj with "key": value appended,
// keeping the order of the fields before it. obj is compact JSON made by
// EncodeJSON, so it ends in '}'.
func AddJSONField(obj json.RawMessage, key string, value json.RawMessage) json.RawMessage {
	body := bytes.TrimSuffix(bytes.TrimSpace(obj), []byte("}"))
	k, _ := EncodeJSON(key)
	out := make([]byte, 0, len(obj)+len(k)+len(value)+2)
	out = append(out, body...)
	if len(bytes.TrimSpace(body)) > 1 { // more than "{"
		out = append(out, ',')
	}
	out = append(out, k...)
	out = append(out, ':')
	out = append(out, value...)
	out = append(out, '}')
	return out
}
