package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pmezard/go-difflib/difflib"
)

// serversKey is where every supported client keeps its servers.
const serversKey = "mcpServers"

// Server is the entry to write: the command a client runs and its arguments.
type Server struct {
	Command string
	Args    []string
}

// Plan is the change to one configuration file, computed without writing.
type Plan struct {
	Path   string
	Name   string // the server entry's name
	Action string // "add", "update" or "unchanged"
	Old    []byte // the file as it is; nil when it does not exist
	New    []byte // the file as it will be
	mode   fs.FileMode
}

// InvalidFileError is a configuration file setup refuses to change: not
// JSON, not an object, or "mcpServers" not an object. Nothing is written.
type InvalidFileError struct {
	Path string
	Err  error
}

func (e *InvalidFileError) Error() string {
	return fmt.Sprintf("%s is not a valid client configuration (%v); nothing was changed: fix the file or move it away, then run setup again", e.Path, e.Err)
}

func (e *InvalidFileError) Unwrap() error { return e.Err }

// PlanServer computes the file at path with the server entry name set to s,
// for client c. Everything else in the file is kept: other servers, other
// settings, their order, and the entry's own other fields (its env, say);
// only the entry's command and args are set. A missing file becomes a file
// with just this server.
func PlanServer(c Client, path, name string, s Server) (Plan, error) {
	p := Plan{Path: path, Name: name, mode: 0o644}
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return p, fmt.Errorf("read %s: %w", path, err)
	default:
		p.Old = old
		if st, err := os.Stat(path); err == nil {
			p.mode = st.Mode().Perm()
		}
	}

	root, err := parseObject(old)
	if err != nil {
		return p, &InvalidFileError{Path: path, Err: err}
	}
	servers := &object{}
	if raw, ok := root.get(serversKey); ok {
		if servers, err = parseObject(raw); err != nil {
			return p, &InvalidFileError{Path: path, Err: fmt.Errorf("%q: %w", serversKey, err)}
		}
	}
	entry := &object{}
	existing, exists := servers.get(name)
	if exists {
		if entry, err = parseObject(existing); err != nil {
			return p, &InvalidFileError{Path: path, Err: fmt.Errorf("%s.%s: %w", serversKey, name, err)}
		}
	} else {
		for _, kv := range c.extra {
			entry.set(kv[0], mustJSON(kv[1]))
		}
	}
	entry.set("command", mustJSON(s.Command))
	args := s.Args
	if args == nil {
		args = []string{}
	}
	entry.set("args", mustJSON(args))
	servers.set(name, entry.compact())
	root.set(serversKey, servers.compact())

	var out bytes.Buffer
	if err := json.Indent(&out, root.compact(), "", "  "); err != nil {
		return p, fmt.Errorf("format %s: %w", path, err)
	}
	out.WriteByte('\n')
	p.New = out.Bytes()
	switch {
	case !exists:
		p.Action = "add"
	case sameJSON(existing, entry.compact()):
		p.Action = "unchanged"
		p.New = p.Old // an unchanged entry leaves the file's bytes alone
	default:
		p.Action = "update"
	}
	return p, nil
}

// Diff is a unified diff from the file as it is to the file as it will be.
func (p Plan) Diff() string {
	if p.Action == "unchanged" {
		return ""
	}
	from := p.Path
	if p.Old == nil {
		from = "/dev/null"
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        difflib.SplitLines(string(p.Old)),
		B:        difflib.SplitLines(string(p.New)),
		FromFile: from,
		ToFile:   p.Path,
		Context:  3,
	})
	if err != nil {
		return err.Error() // difflib fails only on a write to its own buffer
	}
	return d
}

// Apply writes the plan: first a copy of the existing file beside it
// (PATH.vaultgraph-backup-YYYYMMDD-HHMMSS), then the new content through a
// temporary file renamed over the old one, so the client never reads a half
// file and a failure leaves the old one. It returns the backup's path ("" when
// there was no file). The file must not have changed since PlanServer read
// it; if it has, nothing is written.
func Apply(p Plan, now time.Time) (backup string, err error) {
	if p.Action == "unchanged" {
		return "", nil
	}
	current, err := os.ReadFile(p.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if p.Old != nil {
			return "", fmt.Errorf("%s was removed since it was read; nothing was changed", p.Path)
		}
	case err != nil:
		return "", err
	case p.Old == nil || !bytes.Equal(current, p.Old):
		return "", fmt.Errorf("%s changed since it was read; nothing was changed, run setup again", p.Path)
	}
	dir := filepath.Dir(p.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if p.Old != nil {
		backup = uniqueBackup(p.Path, now)
		if err := writeNew(backup, p.Old, p.mode); err != nil {
			return "", fmt.Errorf("back up %s: %w", p.Path, err)
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(p.Path)+".*.tmp")
	if err != nil {
		return backup, err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if _, err := tmp.Write(p.New); err != nil {
		_ = tmp.Close()
		return backup, err
	}
	if err := tmp.Chmod(p.mode); err != nil {
		_ = tmp.Close()
		return backup, err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return backup, err
	}
	if err := tmp.Close(); err != nil {
		return backup, err
	}
	return backup, os.Rename(tmp.Name(), p.Path)
}

// uniqueBackup names a backup file that does not exist yet.
func uniqueBackup(path string, now time.Time) string {
	base := path + ".vaultgraph-backup-" + now.Format("20060102-150405")
	name := base
	for i := 2; ; i++ {
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return name
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
}

// writeNew creates path exclusively with data.
func writeNew(path string, data []byte, mode fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// object is a JSON object that keeps its keys in the file's order and its
// values as they were written, so rewriting it changes only what setup sets.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

// parseObject decodes a JSON object. Empty input (a file that is empty or
// only whitespace) is an empty object. A repeated key is an error: which of
// the two a client uses is its own choice, and setup does not guess.
func parseObject(data []byte) (*object, error) {
	o := &object{vals: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return o, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(data, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want a JSON object, found %s", describeToken(tok))
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonError(data, err)
		}
		key := tok.(string) // inside an object, the decoder yields keys as strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, jsonError(data, err)
		}
		if _, dup := o.vals[key]; dup {
			return nil, fmt.Errorf("the key %q appears twice", key)
		}
		o.keys = append(o.keys, key)
		o.vals[key] = raw
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, jsonError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the closing brace")
	}
	return o, nil
}

// jsonError says where in data the JSON goes wrong, as line and column of
// the offending character. The streaming decoder reports offsets relative to
// the value it was reading, so the whole text is decoded once more for an
// offset from its start.
func jsonError(data []byte, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the JSON ends too early")
	}
	var v any
	var se *json.SyntaxError
	if uerr := json.Unmarshal(data, &v); errors.As(uerr, &se) {
		if se.Offset >= int64(len(data)) && strings.Contains(se.Error(), "end of JSON") {
			return errors.New("the JSON ends too early")
		}
		line, col := 1, 1
		for _, b := range data[:max(se.Offset-1, 0)] { // Offset counts the offending byte
			if b == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return fmt.Errorf("line %d, column %d: %v", line, col, se)
	}
	return err
}

func describeToken(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return "an array"
		}
		return string(t)
	case string:
		return "a string"
	case nil:
		return "null"
	default:
		return fmt.Sprintf("%v", t)
	}
}

func (o *object) get(key string) (json.RawMessage, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// set replaces key's value in place, or appends the key.
func (o *object) set(key string, v json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// compact encodes the object in its key order.
func (o *object) compact() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(mustJSON(k))
		b.WriteByte(':')
		if err := json.Compact(&b, o.vals[k]); err != nil {
			b.Write(o.vals[k]) // unreachable: every value is JSON the decoder or mustJSON made
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// mustJSON encodes a string or a string slice, without escaping <, > and &
// (paths may hold them). Encoding those types cannot fail.
func mustJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings and string slices always encode
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// sameJSON reports whether two JSON texts are the same value.
func sameJSON(a, b []byte) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return false
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}
