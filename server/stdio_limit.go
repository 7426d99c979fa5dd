package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
)

// MaxStdioMessageBytes caps one JSON-RPC message (one line) read from
// stdin. The HTTP transport caps bodies at DefaultMaxBodyBytes before
// reading them; over stdio mcp-go reads a whole line whatever its length,
// so a client sending a gigabyte would make the server hold it all. A
// longer line is skipped without being kept and answered with a JSON-RPC
// "invalid request" error. The limit is twice the tools' argument limit
// (tools.MaxArgumentBytes), so any call the tools would accept fits.
const MaxStdioMessageBytes = 16 << 20

// stdioCodeTooLarge is JSON-RPC's "invalid request".
const stdioCodeTooLarge = -32600

// idPrefixBytes is how much of an oversized line is kept to find its id:
// clients put "id" before "params".
const idPrefixBytes = 64 << 10

var idRe = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")`)

// lineLimiter passes stdin through line by line, dropping lines over max
// bytes and answering each with an error on out.
type lineLimiter struct {
	r       *bufio.Reader
	max     int
	out     io.Writer
	logger  *slog.Logger
	pending []byte // the rest of the current line, for Read
	err     error  // the read error to return once pending is empty
}

func newLineLimiter(r io.Reader, max int, out io.Writer, logger *slog.Logger) *lineLimiter {
	return &lineLimiter{r: bufio.NewReaderSize(r, 64<<10), max: max, out: out, logger: logger}
}

func (l *lineLimiter) Read(p []byte) (int, error) {
	for len(l.pending) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		l.pending, l.err = l.nextLine()
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// nextLine returns the next line that fits (with its newline), answering
// and skipping those that do not.
func (l *lineLimiter) nextLine() ([]byte, error) {
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
			l.tooLarge(line, size)
			if err != nil {
				return nil, err
			}
			break
		}
	}
}

// tooLarge answers an oversized message: an error for its id when one can
// be read from its beginning, else with a null id as JSON-RPC prescribes.
func (l *lineLimiter) tooLarge(prefix []byte, size int) {
	id := json.RawMessage("null")
	if m := idRe.FindSubmatch(prefix); m != nil {
		id = json.RawMessage(bytes.Clone(m[1]))
	}
	msg := fmt.Sprintf("request too large: %d bytes, over the limit of %d bytes (16 MiB) for one message on stdio; send less at once", size, l.max)
	l.logger.Warn("stdio: message over the size limit skipped", "bytes", size, "limit", l.max)
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": stdioCodeTooLarge, "message": msg}})
	if err != nil {
		return
	}
	_, _ = l.out.Write(append(b, '\n'))
}
