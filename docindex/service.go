package docindex

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/docindex/chunk"
)

// Limits.
const (
	// MaxFileBytes is the largest file indexed (docs/LIMITS.md): larger files are
	// refused with "Failed to read file" rather than filling memory.
	MaxFileBytes = 50 << 20
	// MaxResults caps n_results and the candidates of a budgeted search.
	MaxResults = 50
	// embedBatch is how many chunks are embedded per Embed call.
	embedBatch = 64
	// DefaultNamespace is spec 004's default namespace for documents.
	DefaultNamespace = "default"
)

// Config builds a Service.
type Config struct {
	// Project is the store project chunks are kept in.
	Project string
	// Store keeps the chunks.
	Store core.ChunkStore
	// Embedder embeds chunks and queries; required.
	Embedder core.Embedder
	// Fast, when set, is a fast tier of Embedder (embedding.NewFast):
	// chunks are stored with its vectors at once, so a big directory is
	// indexed and searchable in seconds, and RunUpgrades replaces them
	// with Embedder's in the background. A search compares each chunk by
	// the vector it has.
	Fast core.Embedder
	// Roots are the folders files may be read from; the first is where
	// relative paths start (the vault).
	Roots []string
	// Vault is the vault folder: a markdown file inside it is a note, and
	// its chunks record the note's ID. "" for none.
	Vault string
	// Notes tells whether a note exists, to link chunks to it; nil links
	// every markdown file of the vault by its would-be ID.
	Notes NoteFinder
	// Memories adds the memory toolset's memories to searches and stats;
	// nil: documents only.
	Memories Memories
	// Logger gets one line per failed file of a directory; nil: discard.
	Logger *slog.Logger
	// Progress is where a progress bar for big directories goes; nil
	// means stderr, shown only when stderr is a terminal.
	Progress io.Writer
	// Now is the clock; nil: time.Now.
	Now func() time.Time
}

// NoteFinder finds the note a vault file is.
type NoteFinder interface {
	// ResolveTitles maps the existing IDs among ids to their titles.
	ResolveTitles(ctx context.Context, project string, ids []string) (map[string]string, error)
}

// Memories is what the document tools need from the memory toolset: spec
// 004's search covers "indexed documents and memories", and
// get_index_stats counts memories. The memory toolset implements it.
type Memories interface {
	// SearchMemories returns up to limit memories most similar to query,
	// best first, in namespace ("" for any), as hits with DocType
	// "memory" and scores in [0, 1].
	SearchMemories(ctx context.Context, query, namespace string, limit int) ([]Hit, error)
	// MemoryStats counts memories and golden rules and lists their
	// namespaces.
	MemoryStats(ctx context.Context) (MemoryStats, error)
}

// MemoryStats is what get_index_stats reports about memories.
type MemoryStats struct {
	Count       int
	GoldenRules int
	Namespaces  []string
}

// Hit is one search result.
type Hit struct {
	ID         string
	Content    string
	Score      float64
	Namespace  string
	DocType    string
	SourceFile string
	ChunkIndex int
	HeaderPath string
	Page       int
	NoteID     string
	// Metadata is extra metadata of a memory hit; nil for chunks.
	Metadata map[string]any
}

// Service is the document index. It is safe for concurrent use; writes to
// one file are serialised so two index calls never interleave their
// replace of the same file.
type Service struct {
	cfg   Config
	roots []root
	log   *slog.Logger
	now   func() time.Time

	fileLocks sync.Map // source file -> *sync.Mutex

	reembedMu   sync.Mutex
	reembedDone bool

	upgrade chan struct{} // buffered(1): chunks wait for Embedder's vectors
}

// New returns a Service for cfg.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Embedder == nil {
		return nil, errors.New("docindex: a store and an embedder are required")
	}
	roots, err := newRoots(cfg.Roots)
	if err != nil {
		return nil, fmt.Errorf("docindex: roots: %w", err)
	}
	s := &Service{cfg: cfg, roots: roots, log: cfg.Logger, now: cfg.Now, upgrade: make(chan struct{}, 1)}
	if cfg.Fast != nil {
		// Chunks of an earlier model are upgraded with the fast tier's.
		s.reembedDone = true
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Roots returns the allowed roots, cleaned and absolute.
func (s *Service) Roots() []string {
	out := make([]string, len(s.roots))
	for i, r := range s.roots {
		out[i] = r.clean
	}
	return out
}

// FileResult is the outcome of indexing one file.
type FileResult struct {
	SourceFile string
	Namespace  string
	ChunkIDs   []string
	// Skipped is true when the file was already indexed with the same
	// content and namespace; ChunkIDs are then its existing chunks.
	Skipped bool
}

// IndexFile indexes one file (index_file). An unchanged file is not
// indexed again (Skipped). A symbolic link inside the roots is indexed
// under the real path of the file it names, so one file never has two sets
// of chunks.
func (s *Service) IndexFile(ctx context.Context, path string, namespace string) (*FileResult, error) {
	abs, err := s.absolute(path)
	if err != nil {
		return nil, err
	}
	if _, _, ok := s.locate(abs); !ok {
		return nil, s.notAllowed(path)
	}
	if err := s.reembed(ctx); err != nil {
		return nil, err
	}
	return s.indexPath(ctx, abs, namespaceOr(namespace))
}

// readAttempts is how often a file that changed between its check and its
// read (a name swapped for a link or another file) is resolved again.
const readAttempts = 3

// indexPath resolves abs (clean, absolute, lexically inside a root) and
// indexes the file it names.
func (s *Service) indexPath(ctx context.Context, abs, namespace string) (*FileResult, error) {
	for attempt := 1; ; attempt++ {
		t, err := s.resolve(abs)
		if err != nil {
			return nil, err
		}
		res, err := s.indexTarget(ctx, t, namespace)
		t.Close()
		if errors.Is(err, errChanged) {
			if attempt < readAttempts {
				continue
			}
			return nil, newError(ErrReadFailed, "Failed to read file: %s changed while it was being read; try again", abs)
		}
		return res, err
	}
}

func (s *Service) indexTarget(ctx context.Context, t *target, namespace string) (*FileResult, error) {
	if t.Info.IsDir() {
		return nil, newError(ErrReadFailed, "Failed to read file: %s is a directory; use index_directory", t.Abs)
	}
	if !t.Info.Mode().IsRegular() {
		// A FIFO or device would block the read or never end.
		return nil, newError(ErrReadFailed, "Failed to read file: %s is not a regular file", t.Abs)
	}
	kind, ok := chunk.KindOf(t.Abs)
	if !ok {
		return nil, unsupported(t.Abs)
	}
	return s.indexFile(ctx, t, kind, namespace)
}

func unsupported(path string) error {
	ext := filepath.Ext(path)
	if ext == "" {
		ext = filepath.Base(path)
	}
	return newError(ErrUnsupported, "Unsupported file type: %s (supported: %s)", ext, strings.Join(chunk.Extensions(), ", "))
}

func namespaceOr(ns string) string {
	if strings.TrimSpace(ns) == "" {
		return DefaultNamespace
	}
	return ns
}

func (s *Service) lockFile(abs string) func() {
	m, _ := s.fileLocks.LoadOrStore(abs, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

func (s *Service) indexFile(ctx context.Context, t *target, kind chunk.Kind, namespace string) (*FileResult, error) {
	abs := t.Abs
	defer s.lockFile(abs)()
	if t.Info.Size() > MaxFileBytes {
		return nil, tooBig(abs, t.Info.Size())
	}
	// Read through the root's handle, the very file resolve checked.
	data, fi, err := t.readVerified(MaxFileBytes)
	switch {
	case errors.Is(err, errChanged):
		return nil, err
	case errors.Is(err, errTooBig):
		return nil, tooBig(abs, fi.Size())
	case err != nil:
		return nil, fileError(abs, err)
	case len(data) == 0:
		return nil, newError(ErrEmpty, "File is empty: %s", abs)
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])

	existing, err := s.cfg.Store.ChunkFile(ctx, s.cfg.Project, abs)
	switch {
	case err == nil && existing.FileHash == hash && existing.Namespace == namespace:
		return &FileResult{SourceFile: abs, Namespace: namespace, ChunkIDs: existing.IDs, Skipped: true}, nil
	case err != nil && !errors.Is(err, core.ErrNotFound):
		return nil, fmt.Errorf("docindex: index %s: %w", abs, err)
	}

	pieces, err := chunk.Split(kind, data)
	if err != nil {
		return nil, newError(ErrReadFailed, "Failed to extract content: %s", strings.TrimPrefix(err.Error(), "chunk: "))
	}
	if len(pieces) == 0 {
		return nil, newError(ErrEmpty, "File is empty: %s has no text to index", abs)
	}
	texts := make([]string, len(pieces))
	for i, p := range pieces {
		texts[i] = embedText(p.HeaderPath, p.Content)
	}
	emb := s.cfg.Embedder
	if s.cfg.Fast != nil {
		emb = s.cfg.Fast
	}
	vectors, err := s.embedWith(ctx, emb, texts)
	if err != nil {
		return nil, fmt.Errorf("docindex: embed %s: %w", abs, err)
	}
	noteID := s.noteID(ctx, abs)
	now := s.now().UTC().Truncate(time.Millisecond)
	chunks := make([]core.Chunk, len(pieces))
	ids := make([]string, len(pieces))
	for i, p := range pieces {
		ids[i] = s.chunkID(abs, hash, i)
		chunks[i] = core.Chunk{
			ID: ids[i], SourceFile: abs, Namespace: namespace, DocType: core.DocTypeDocument,
			Index: i, Content: p.Content, HeaderPath: p.HeaderPath, Page: p.Page,
			FileHash: hash, NoteID: noteID, Model: emb.Model(), Vector: vectors[i], IndexedAt: now,
		}
	}
	if _, err := s.cfg.Store.ReplaceFileChunks(ctx, s.cfg.Project, abs, chunks); err != nil {
		return nil, fmt.Errorf("docindex: store chunks of %s: %w", abs, err)
	}
	if emb != s.cfg.Embedder {
		s.wakeUpgrades()
	}
	return &FileResult{SourceFile: abs, Namespace: namespace, ChunkIDs: ids}, nil
}

// embedText is what is embedded for a chunk: its titles, then its text.
func embedText(headerPath, content string) string {
	if headerPath == "" {
		return content
	}
	return headerPath + "\n" + content
}

func (s *Service) embed(ctx context.Context, texts []string) ([][]float32, error) {
	return s.embedWith(ctx, s.cfg.Embedder, texts)
}

func (s *Service) embedWith(ctx context.Context, e core.Embedder, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += embedBatch {
		end := min(start+embedBatch, len(texts))
		vs, err := e.Embed(ctx, texts[start:end])
		if err != nil {
			return nil, err
		}
		if len(vs) != end-start {
			return nil, fmt.Errorf("embedder returned %d vectors for %d texts", len(vs), end-start)
		}
		out = append(out, vs...)
	}
	return out, nil
}

func tooBig(abs string, size int64) error {
	return newError(ErrReadFailed, "Failed to read file: %s is %d bytes, more than the %d MiB limit", abs, size, MaxFileBytes>>20)
}

func (s *Service) chunkID(abs, hash string, i int) string {
	sum := sha256.Sum256([]byte(s.cfg.Project + "\x00" + abs + "\x00" + hash + "\x00" + strconv.Itoa(i)))
	return "chunk_" + hex.EncodeToString(sum[:8])
}

// noteID returns the ID of the vault note abs is, or "". Vault note IDs
// are vault-relative slash paths, tried as written and lowercased
// (core.IDCandidates).
func (s *Service) noteID(ctx context.Context, abs string) string {
	if s.cfg.Vault == "" || !strings.EqualFold(filepath.Ext(abs), ".md") {
		return ""
	}
	vault, err := filepath.Abs(s.cfg.Vault)
	if err != nil || !within(vault, abs) {
		return ""
	}
	rel, err := filepath.Rel(vault, abs)
	if err != nil {
		return ""
	}
	rel = filepath.ToSlash(rel)
	candidates := core.IDCandidates(rel)
	if s.cfg.Notes == nil {
		return candidates[len(candidates)-1]
	}
	found, err := s.cfg.Notes.ResolveTitles(ctx, s.cfg.Project, candidates)
	if err != nil {
		return ""
	}
	for _, c := range candidates {
		if _, ok := found[c]; ok {
			return c
		}
	}
	return ""
}

// FailedFile is a file of a directory that could not be indexed.
type FailedFile struct {
	File  string
	Error string
}

// DirResult is the outcome of index_directory.
type DirResult struct {
	FilesIndexed      int
	TotalChunks       int
	FailedFiles       []FailedFile
	SkippedDuplicates int
}

// IndexDirectory indexes every supported file under dir (index_directory):
// hidden files and folders (.git, .obsidian) and symbolic links are not
// followed, unsupported extensions are ignored, and a file that fails is
// listed in FailedFiles while the others go on. dir itself may be a link
// to a folder inside the roots: its files are indexed under their real
// paths, as index_file names them. The walk reads the folders through
// the root's handle, and each file is resolved again before it is read.
func (s *Service) IndexDirectory(ctx context.Context, dir string, recursive bool, namespace string) (*DirResult, error) {
	abs, err := s.absolute(dir)
	if err != nil {
		return nil, err
	}
	if _, _, ok := s.locate(abs); !ok {
		return nil, s.notAllowed(dir)
	}
	t, err := s.resolve(abs)
	if err != nil {
		if errors.Is(err, ErrFileNotFound) {
			return nil, newError(ErrFileNotFound, "Directory not found: %s", abs)
		}
		return nil, err
	}
	defer t.Close()
	if !t.Info.IsDir() {
		return nil, newError(ErrInvalid, "Not a directory: %s; use index_file for a single file", t.Abs)
	}
	if err := s.reembed(ctx); err != nil {
		return nil, err
	}
	namespace = namespaceOr(namespace)
	start := filepath.ToSlash(t.Rel)
	var files []string // absolute, under the directory's real path
	walkErr := fs.WalkDir(t.handle.FS(), start, func(p string, d fs.DirEntry, err error) error {
		full := filepath.Join(t.root.clean, filepath.FromSlash(p))
		if err != nil {
			if p == start {
				return err
			}
			files = append(files, full) // reported as a failure below
			return nil
		}
		if p != start && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != start && !recursive {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 || !d.Type().IsRegular() {
			return nil
		}
		if _, ok := chunk.KindOf(p); ok {
			files = append(files, full)
		}
		return nil
	})
	if walkErr != nil {
		return nil, fileError(t.Abs, walkErr)
	}
	slices.Sort(files)

	res := &DirResult{FailedFiles: []FailedFile{}}
	bar := s.newProgress(len(files), "indexing "+filepath.Base(t.Abs))
	defer bar.Finish()
	for i, f := range files {
		core.ReportProgress(ctx, i, len(files), "indexing "+filepath.Base(f))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Resolved again: a folder swapped for a link since the walk
		// must not lead the read out of the roots.
		r, err := s.indexPath(ctx, f, namespace)
		bar.Add(1)
		if i == len(files)-1 {
			core.ReportProgress(ctx, len(files), len(files), "indexed "+filepath.Base(t.Abs))
		}
		switch {
		case err != nil:
			msg := err.Error()
			var e *Error
			if !errors.As(err, &e) {
				if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
					return nil, err
				}
				s.log.Warn("index file failed", "file", f, "err", err)
				msg = "Failed to index: " + providerMessage(err)
			}
			res.FailedFiles = append(res.FailedFiles, FailedFile{File: f, Error: msg})
		case r.Skipped:
			res.SkippedDuplicates++
		default:
			res.FilesIndexed++
			res.TotalChunks += len(r.ChunkIDs)
		}
	}
	return res, nil
}

// providerMessage says what failed without a driver's or service's text.
func providerMessage(err error) string {
	var pe *core.ProviderError
	if errors.As(err, &pe) {
		return pe.Op + " failed"
	}
	return "internal error"
}

// reembed embeds again, once per process, the chunks a previous model
// embedded, so a search never compares vectors of two models and never
// misses the old chunks.
func (s *Service) reembed(ctx context.Context) error {
	s.reembedMu.Lock()
	defer s.reembedMu.Unlock()
	if s.reembedDone {
		return nil
	}
	model := s.cfg.Embedder.Model()
	total := 0
	for {
		stale, err := s.cfg.Store.StaleChunks(ctx, s.cfg.Project, model, 256)
		if err != nil {
			return fmt.Errorf("docindex: find chunks of another model: %w", err)
		}
		if len(stale) == 0 {
			break
		}
		texts := make([]string, len(stale))
		for i, c := range stale {
			texts[i] = embedText(c.HeaderPath, c.Content)
		}
		vs, err := s.embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("docindex: embed chunks again: %w", err)
		}
		m := make(map[string][]float32, len(stale))
		for i, c := range stale {
			m[c.ID] = vs[i]
		}
		if err := s.cfg.Store.SetChunkVectors(ctx, s.cfg.Project, model, m); err != nil {
			return fmt.Errorf("docindex: store new chunk vectors: %w", err)
		}
		total += len(stale)
	}
	if total > 0 {
		s.log.Info("document chunks embedded again for a new model", "chunks", total, "model", model)
	}
	s.reembedDone = true
	return nil
}
