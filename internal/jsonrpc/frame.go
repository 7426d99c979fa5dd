package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"regexp"
)

// idPrefixBytes is how much of an oversized line is kept to find its id:
// clients put "id" before "params".
const idPrefixBytes = 64 << 10

var idRe = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")`)

// TooLarge is called for each line a Reader skips: the id read from its
// beginning (null when none could be read) and its size in bytes.
type TooLarge func(id json.RawMessage, size int)

// Reader reads newline-delimited messages of at most max bytes each
// (newline included). A longer line is skipped without being kept whole:
// only its first 64 KiB are read for its id, and tooLarge is told.
type Reader struct {
	r        *bufio.Reader
	max      int
	tooLarge TooLarge
}

// NewReader reads lines from r; tooLarge may be nil.
func NewReader(r io.Reader, max int, tooLarge TooLarge) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), max: max, tooLarge: tooLarge}
}

// Next returns the next line that fits, with its newline (the last line
// of the input may have none). err is nil, io.EOF at the end of input
// (line may still hold a last line) or the read error.
func (l *Reader) Next() ([]byte, error) {
	for {
		var line []byte
		size, over := 0, false
		for {
			chunk, err := l.r.ReadSlice('\n')
			size += len(chunk)
			switch {
			case !over && size <= l.max:
				line = append(line, chunk...)
			case !over:
				over = true
				keep := max(0, min(len(chunk), idPrefixBytes-len(line)))
				line = append(line, chunk[:keep]...)
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if !over {
				return line, err // err is nil, io.EOF or a read error
			}
			if l.tooLarge != nil {
				l.tooLarge(IDFromPrefix(line), size)
			}
			if err != nil {
				return nil, err
			}
			break
		}
	}
}

// IDFromPrefix reads the id of a message from its beginning (a string or
// a number), null when none is found.
func IDFromPrefix(prefix []byte) json.RawMessage {
	if m := idRe.FindSubmatch(prefix); m != nil {
		return json.RawMessage(bytes.Clone(m[1]))
	}
	return json.RawMessage("null")
}

// ReadLines calls next on a goroutine of its own (a read from stdin
// cannot be interrupted, and ctx must still end the caller) and sends the
// lines that are not blank; the error that ends the reading, io.EOF at
// the end of input, comes on the second channel.
func ReadLines(ctx context.Context, next func() ([]byte, error)) (<-chan []byte, <-chan error) {
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		for {
			line, err := next()
			if len(bytes.TrimSpace(line)) > 0 {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()
	return lines, readErr
}
