package tools

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxDupKeyDepth bounds the nesting DuplicateKey follows, as encoding/json
// does (it refuses documents nested deeper than 10,000): a line of a
// million '[' must not grow the stack without end.
const maxDupKeyDepth = 10000

// mapKeysFrom is the number of keys of one object above which its keys
// are kept in a map instead of compared one by one, so that an object of
// a million keys costs a million lookups, not 10^12 comparisons.
const mapKeysFrom = 32

// DuplicateKey reports the first key that appears twice in one JSON
// object of data, as a path from the top ("params.arguments.title",
// "params.items[2].name"). Keys are compared as JSON strings, after
// unescaping: "n\u0061me" and "name" are the same key. encoding/json keeps
// the last of two equal keys, while another reader (a gateway, an audit
// log) may keep the first, so a message with a duplicate means different
// things to different readers and is refused before it is acted on.
//
// Data that is not valid JSON, or nested deeper than 10,000 levels, may
// report nothing: the JSON decoder that reads it next refuses it.
func DuplicateKey(data []byte) (path string, found bool) {
	s := dupScanners.Get().(*dupScanner)
	s.data = data
	s.value(0)
	path, found = s.dupPath, s.found
	// Forget the message (the kept keys point into it) before pooling.
	clear(s.keys[:cap(s.keys)])
	clear(s.path[:cap(s.path)])
	*s = dupScanner{keys: s.keys[:0], path: s.path[:0]}
	dupScanners.Put(s)
	return path, found
}

// dupScanners are reused: every JSON-RPC message is scanned, and a new
// scanner's key and path slices were most of what a scan allocated.
var dupScanners = sync.Pool{New: func() any {
	return &dupScanner{keys: make([][]byte, 0, 32), path: make([]pathSeg, 0, 16)}
}}

type dupScanner struct {
	data    []byte
	pos     int
	bad     bool // not JSON (or too deep): give up, report nothing
	found   bool
	dupPath string
	path    []pathSeg
	keys    [][]byte // the keys of the objects being read, innermost last
}

type pathSeg struct {
	key     []byte // the key (unescaped), unless isIndex
	index   int
	isIndex bool
}

func (s *dupScanner) stop() bool { return s.bad || s.found }

func (s *dupScanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *dupScanner) value(depth int) {
	if depth > maxDupKeyDepth {
		s.bad = true
		return
	}
	s.skipSpace()
	if s.pos >= len(s.data) {
		s.bad = true
		return
	}
	switch s.data[s.pos] {
	case '{':
		s.object(depth)
	case '[':
		s.array(depth)
	case '"':
		s.str()
	default: // number, true, false, null: up to the next delimiter
		start := s.pos
		for s.pos < len(s.data) {
			c := s.data[s.pos]
			if c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				break
			}
			s.pos++
		}
		if s.pos == start {
			s.bad = true
		}
	}
}

// str skips a string starting at s.pos and returns its contents (between
// the quotes, still escaped) and whether they hold an escape.
func (s *dupScanner) str() (raw []byte, escaped bool) {
	start := s.pos + 1
	i := start
	for {
		j := bytes.IndexByte(s.data[i:], '"')
		if j < 0 {
			s.bad = true
			return nil, false
		}
		end := i + j
		// The quote is escaped when an odd run of backslashes precedes it.
		n := 0
		for k := end - 1; k >= start && s.data[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			s.pos = end + 1
			raw = s.data[start:end]
			return raw, bytes.IndexByte(raw, '\\') >= 0
		}
		i = end + 1
	}
}

// isASCII reports whether b holds only ASCII bytes: most keys, which then
// need no UTF-8 check.
func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func (s *dupScanner) object(depth int) {
	s.pos++ // {
	base, pathLen := len(s.keys), len(s.path)
	s.path = append(s.path, pathSeg{})
	s.objectBody(depth, base)
	s.keys, s.path = s.keys[:base], s.path[:pathLen]
}

// objectBody reads the members of an object whose keys start at base.
func (s *dupScanner) objectBody(depth, base int) {
	var set map[string]struct{}
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return
	}
	for !s.stop() {
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			s.bad = true
			return
		}
		key, escaped := s.str()
		if s.bad {
			return
		}
		// A key with escapes, or with bytes that are not UTF-8 (the
		// decoder reads each as U+FFFD, so "\xa1" and "\xc3" are one
		// key), is compared as the decoder will read it.
		if escaped || !isASCII(key) && !utf8.Valid(key) {
			var k string
			if json.Unmarshal(s.data[s.pos-len(key)-2:s.pos], &k) != nil {
				s.bad = true
				return
			}
			key = []byte(k)
		}
		s.path[len(s.path)-1] = pathSeg{key: key}
		dup := false
		switch {
		case set != nil:
			_, dup = set[string(key)]
			set[string(key)] = struct{}{}
		default:
			for _, k := range s.keys[base:] {
				if bytes.Equal(k, key) {
					dup = true
					break
				}
			}
			s.keys = append(s.keys, key)
			if len(s.keys)-base > mapKeysFrom {
				set = make(map[string]struct{}, 2*mapKeysFrom)
				for _, k := range s.keys[base:] {
					set[string(k)] = struct{}{}
				}
			}
		}
		if dup {
			s.found, s.dupPath = true, s.pathString()
			return
		}
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			s.bad = true
			return
		}
		s.pos++
		s.value(depth + 1)
		if s.stop() || !s.more('}') {
			return
		}
	}
}

func (s *dupScanner) array(depth int) {
	s.pos++ // [
	pathLen := len(s.path)
	s.path = append(s.path, pathSeg{})
	s.arrayBody(depth)
	s.path = s.path[:pathLen]
}

// arrayBody reads the elements of an array.
func (s *dupScanner) arrayBody(depth int) {
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		return
	}
	for i := 0; !s.stop(); i++ {
		s.path[len(s.path)-1] = pathSeg{index: i, isIndex: true}
		s.value(depth + 1)
		if s.stop() || !s.more(']') {
			return
		}
	}
}

// pathString renders the current path: keys joined with dots, array
// indexes in brackets.
func (s *dupScanner) pathString() string {
	var b strings.Builder
	for _, seg := range s.path {
		if seg.isIndex {
			b.WriteString("[" + strconv.Itoa(seg.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.Write(seg.key)
	}
	return b.String()
}

// more reads what follows a member of an object or an element of an
// array: a ',' (another follows: true) or end, the container's closing
// bracket (false); anything else, or the end of the data, marks s bad.
func (s *dupScanner) more(end byte) bool {
	s.skipSpace()
	if s.pos >= len(s.data) {
		s.bad = true
		return false
	}
	switch s.data[s.pos] {
	case ',':
		s.pos++
		return true
	case end:
		s.pos++
		return false
	default:
		s.bad = true
		return false
	}
}
