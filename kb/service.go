package kb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/confine"
	"github.com/vaultgraph/vaultgraph/core"
)

// Where knowledge bases are stored, relative to the vault root (the
// plugin's layout, spec 002 "Storage").
const (
	bridgesDir     = ".llm_bridges"
	kbDir          = "knowledge_base"
	metaFile       = "meta.md"
	constraintsDir = "folder_constraints"
	cacheFile      = "metadata.json"
)

// Files is the note I/O of the vault, by vault-relative path. Each write
// changes the file atomically and then the graph store in the same call,
// so a note written through the knowledge base tools is in the graph when
// the call returns. *vault.Writer implements it.
//
// Errors wrap core.ErrNotFound (no such note), core.ErrExists (a create
// or rename would replace a note), core.ErrInvalidPath (a path the vault
// refuses) and core.ErrConflict (expectedHash does not match). Hashes are
// the hex SHA-256 of the file's bytes; they are the notes' versions.
type Files interface {
	// ReadFile returns a note's bytes and their hash.
	ReadFile(rel string) ([]byte, string, error)
	// CreateFile writes a new note; it never replaces one.
	CreateFile(ctx context.Context, rel string, content []byte) (*core.Note, error)
	// WriteFile replaces an existing note's content when its current hash
	// is expectedHash (any hash when it is "").
	WriteFile(ctx context.Context, rel string, content []byte, expectedHash string) (*core.Note, error)
	// DeleteFile removes a note.
	DeleteFile(ctx context.Context, rel string) error
	// Rename moves a note without replacing one at to, and rewrites the
	// links of other notes that pointed at it.
	Rename(ctx context.Context, from, to string) (*core.RenameReport, error)
	// NotePath returns the path, as it is on disk, of the note rel names:
	// rel when a note is there, else the one note whose path matches rel
	// in letter case and Unicode form (clients know the graph's lowercased
	// IDs), else rel. Several such notes are a *core.InvalidPathError
	// naming them.
	NotePath(rel string) (string, error)
}

// FileCreateReporter is Files whose create also says which other notes it
// rewrote so that the bare links the new note would take over keep their
// target, sorted by ID (*vault.Writer has it). CreateNote uses it when
// the Files has it.
type FileCreateReporter interface {
	CreateFileReporting(ctx context.Context, rel string, content []byte) (*core.Note, []core.Relinked, error)
}

// Config says which vault a Service manages.
type Config struct {
	// Root is the vault folder, opened once (New) and held until Close.
	Root string
	// Files reads and writes notes (the vault's writer).
	Files Files
	// Logger receives skipped metadata files and similar problems; nil
	// means slog.Default().
	Logger *slog.Logger
	// Now is the clock for create_time; nil means time.Now.
	Now func() time.Time
}

// Service implements the knowledge base operations of spec 002 on a vault.
// It reads the metadata files on every call, so changes the Obsidian
// plugin or a person makes are seen at once. It is safe for concurrent
// use: metadata changes are serialised, and writes of one note are
// serialised with each other and checked against the note's version.
type Service struct {
	fs    *confine.Root // the vault folder; every file operation outside Files goes through it (fsys.go)
	files Files
	log   *slog.Logger
	now   func() time.Time

	meta  sync.RWMutex // held to write metadata; read-held by note writes
	locks pathLocks
}

// New returns the Service of cfg's vault.
func New(cfg Config) (*Service, error) {
	if cfg.Root == "" || cfg.Files == nil {
		return nil, errors.New("kb: config: root and files are required")
	}
	// The root itself may be reached through links (it is where the user
	// chose to keep the vault); nothing below it is.
	fsys, err := confine.OpenRoot(cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("kb: vault root %s is not a folder that can be opened: %w", cfg.Root, err)
	}
	s := &Service{fs: fsys, files: cfg.Files, log: cfg.Logger, now: cfg.Now}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Close releases the Service's handle on the vault folder; the Service
// must not be used after.
func (s *Service) Close() error { return s.fs.Close() }

// baseDir is the vault-relative folder holding one folder per knowledge base.
func baseDir() string { return bridgesDir + "/" + kbDir }

func kbPath(name string, parts ...string) string {
	return strings.Join(append([]string{baseDir(), name}, parts...), "/")
}

// load returns the knowledge base called name: knowledge_base_not_found
// when there is none, an error naming the file when its meta.md cannot be
// read.
func (s *Service) load(name string) (*KnowledgeBase, error) {
	kb, _, err := s.loadRaw(name)
	return kb, err
}

// loadRaw is load, also returning the bytes of meta.md the knowledge base
// was read from (what a compare-and-write of meta.md compares with).
func (s *Service) loadRaw(name string) (*KnowledgeBase, []byte, error) {
	notFound := newError(CodeKnowledgeBaseNotFound, "no knowledge base is named %q; list_knowledge_bases shows the existing ones", name)
	if !lookupName(name) {
		return nil, nil, notFound
	}
	raw, err := s.readMeta(kbPath(name, metaFile))
	if errors.Is(err, fs.ErrNotExist) {
		if name = s.folderLike(name); name == "" {
			return nil, nil, notFound
		}
		raw, err = s.readMeta(kbPath(name, metaFile))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("kb: read knowledge base %s: %w", name, err)
	}
	kb, err := decodeMeta(name, raw)
	if err != nil {
		return nil, nil, fmt.Errorf("kb: knowledge base %s: %s/%s is unreadable: %w", name, kbPath(name), metaFile, err)
	}
	return kb, raw, nil
}

// folderLike returns the name of the one knowledge base whose name equals
// name in another letter case or Unicode form (a client may send "é"
// decomposed, or lowercase a name); "" when there is none, or several.
func (s *Service) folderLike(name string) string {
	entries, err := s.fs.ReadDir(baseDir())
	if err != nil {
		return ""
	}
	found := ""
	for _, e := range entries {
		if e.IsDir() && lookupName(e.Name()) && foldKey(e.Name()) == foldKey(name) && s.exists(kbPath(e.Name(), metaFile)) {
			if found != "" {
				return ""
			}
			found = e.Name()
		}
	}
	return found
}

// scan returns every readable knowledge base, by name. Folders without a
// meta.md, and meta.md files that cannot be read, are skipped (and the
// latter logged), as the plugin does.
func (s *Service) scan(ctx context.Context) ([]*KnowledgeBase, []string, error) {
	entries, err := s.fs.ReadDir(baseDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("kb: list knowledge bases: %w", err)
	}
	var kbs []*KnowledgeBase
	var folders []string // every knowledge base folder, readable or not
	for _, e := range entries {
		if !e.IsDir() || !lookupName(e.Name()) {
			continue
		}
		if !s.exists(kbPath(e.Name(), metaFile)) {
			continue
		}
		folders = append(folders, e.Name())
		kb, err := s.load(e.Name())
		if err != nil {
			s.log.WarnContext(ctx, "kb: skipping an unreadable knowledge base", "name", e.Name(), "err", err)
			continue
		}
		kbs = append(kbs, kb)
	}
	slices.SortFunc(kbs, func(a, b *KnowledgeBase) int { return strings.Compare(a.Name, b.Name) })
	return kbs, folders, nil
}
