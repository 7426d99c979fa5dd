package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"unsafe"
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
