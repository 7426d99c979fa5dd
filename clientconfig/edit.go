package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
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
	// JSONC is set when the file has comments or trailing commas, which
	// some clients (Claude Desktop) do not accept.
	JSONC bool
	mode  fs.FileMode
}

// InvalidFileError is a configuration file setup refuses to change: not
// JSON or JSONC, not an object, a key repeated, or "mcpServers" or the
// entry not an object. Nothing is written.
type InvalidFileError struct {
	Path string
	Err  error
}

func (e *InvalidFileError) Error() string {
	return fmt.Sprintf("%s is not a valid client configuration (%v); nothing was changed: fix the file or move it away, then run setup again", e.Path, e.Err)
}

func (e *InvalidFileError) Unwrap() error { return e.Err }

// PlanServer computes the file at path with the server entry name set to s,
// for client c. The file may be JSON or JSONC (comments, trailing commas).
// Everything else in it is kept byte for byte: other servers, other settings,
// their order, comments, trailing commas, indentation, and the entry's own
// other fields (its env, say); only the entry's command and args are set.
// A new entry is indented as its neighbours are. A missing file becomes a
// file with just this server.
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
	args := s.Args
	if args == nil {
		args = []string{}
	}
	var extra [][2]string
	for _, kv := range c.extra {
		extra = append(extra, [2]string{kv[0], string(mustJSON(kv[1]))})
	}
	set := [][2]string{{"command", string(mustJSON(s.Command))}, {"args", string(mustJSON(args))}}

	if len(bytes.TrimSpace(old)) == 0 { // no file, or only whitespace: {}
		entry := newObject(append(extra, set...))
		doc := newObject([][2]string{{serversKey, string(newObject([][2]string{{name, string(entry)}}))}})
		var out bytes.Buffer
		if err := json.Indent(&out, doc, "", "  "); err != nil {
			return p, fmt.Errorf("format %s: %w", path, err)
		}
		out.WriteByte('\n')
		p.New, p.Action = out.Bytes(), "add"
		return p, nil
	}

	d, err := parseDoc(old)
	if err != nil {
		return p, &InvalidFileError{Path: path, Err: err}
	}
	p.JSONC = d.jsonc
	root, err := d.object(&d.root, "")
	if err != nil {
		return p, &InvalidFileError{Path: path, Err: err}
	}
	serversAt, ok := find(root, serversKey)
	if !ok {
		entry := newObject(append(extra, set...))
		d.insert(root, d.root.StartOffset, serversKey, newObject([][2]string{{name, string(entry)}}))
		p.New, p.Action = d.root.Pack(), "add"
		return p, nil
	}
	servers, err := d.object(&root.Members[serversAt].Value, serversKey)
	if err != nil {
		return p, &InvalidFileError{Path: path, Err: err}
	}
	entryAt, ok := find(servers, name)
	if !ok {
		d.insert(servers, root.Members[serversAt].Value.StartOffset, name, newObject(append(extra, set...)))
		p.New, p.Action = d.root.Pack(), "add"
		return p, nil
	}
	entryValue := &servers.Members[entryAt].Value
	entry, err := d.object(entryValue, serversKey+"."+name)
	if err != nil {
		return p, &InvalidFileError{Path: path, Err: err}
	}
	changed := false
	for _, kv := range set {
		at, ok := find(entry, kv[0])
		switch {
		case !ok:
			d.insert(entry, entryValue.StartOffset, kv[0], json.RawMessage(kv[1]))
			changed = true
		case !sameJSON(standard(entry.Members[at].Value), []byte(kv[1])):
			d.replace(&entry.Members[at], json.RawMessage(kv[1]))
			changed = true
		}
	}
	if !changed {
		p.New, p.Action = p.Old, "unchanged" // an unchanged entry leaves the file's bytes alone
		return p, nil
	}
	p.New, p.Action = d.root.Pack(), "update"
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
// file and a failure leaves the old one. Both files are written whole to a
// temporary file in the same folder and flushed before they get their
// names, and the folder is flushed after, so a kill or a power cut at any
// instant leaves the file either as it was or as planned, and a backup
// either whole or absent (at most a stray hidden .*.tmp file). It returns
// the backup's path ("" when there was no file). The file must not have
// changed since PlanServer read it; if it has, nothing is written.
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
		if backup, err = writeBackup(p.Path, p.Old, p.mode, now); err != nil {
			return "", fmt.Errorf("back up %s: %w", p.Path, err)
		}
	}
	tmp, err := writeTemp(p.Path, p.New, p.mode)
	if err != nil {
		return backup, err
	}
	if err := os.Rename(tmp, p.Path); err != nil {
		_ = os.Remove(tmp)
		return backup, err
	}
	return backup, syncDir(dir)
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

// writeBackup writes data whole to a new backup file beside path and
// returns its name. The data goes to a temporary file first, which is then
// linked under the backup's name (a link never replaces a file, so a
// backup made meanwhile under that name is kept and the next name taken);
// where the file system has no links, it is renamed instead.
func writeBackup(path string, data []byte, mode fs.FileMode, now time.Time) (string, error) {
	tmp, err := writeTemp(path, data, mode)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp)
	for range 100 {
		name := uniqueBackup(path, now)
		err := os.Link(tmp, name)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			if err := os.Rename(tmp, name); err != nil {
				return "", err
			}
		}
		return name, syncDir(filepath.Dir(path))
	}
	return "", fmt.Errorf("no free backup name beside %s", path)
}

// writeTemp writes data to a new hidden temporary file beside path,
// flushed to disk, and returns its name; on an error nothing is left.
func writeTemp(path string, data []byte, mode fs.FileMode) (name string, err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return "", err
	}
	if err := f.Chmod(mode); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return f.Name(), nil
}

// syncDir flushes a folder, so that the names given in it survive a power
// cut. Windows cannot open a folder for that (its renames are journaled).
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
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

// sameJSON reports whether two JSON texts are the same value (so "\u0026"
// and "&" are the same string, and spacing does not count).
func sameJSON(a, b []byte) bool {
	x, errX := decodeAny(a)
	y, errY := decodeAny(b)
	return errX == nil && errY == nil && reflect.DeepEqual(x, y)
}

func decodeAny(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
