package docindex

import (
	"context"
	"fmt"
	"slices"
)

// DeleteChunks deletes chunks by ID and returns those that existed.
func (s *Service) DeleteChunks(ctx context.Context, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return []string{}, nil
	}
	got, err := s.cfg.Store.DeleteChunks(ctx, s.cfg.Project, ids)
	if err != nil {
		return nil, fmt.Errorf("docindex: delete chunks: %w", err)
	}
	if got == nil {
		got = []string{}
	}
	return got, nil
}

// DeleteFile deletes every chunk of a source file, named as index_file
// takes it (relative paths start at the vault). The file need not exist
// any more, nor lie in an allowed root: nothing is read. A symbolic link
// inside the roots names the file it leads to, as in index_file; chunks
// kept under the link's own name (indexed before links were resolved)
// go too. It returns the path whose chunks were deleted.
func (s *Service) DeleteFile(ctx context.Context, sourceFile string) (string, int, error) {
	abs, err := s.absolute(sourceFile)
	if err != nil {
		return "", 0, err
	}
	real := s.realPath(abs)
	total := 0
	for _, p := range slices.Compact([]string{real, abs}) {
		n, err := s.deleteFileChunks(ctx, p)
		if err != nil {
			return "", 0, err
		}
		total += n
	}
	return real, total, nil
}

func (s *Service) deleteFileChunks(ctx context.Context, abs string) (int, error) {
	defer s.lockFile(abs)()
	n, err := s.cfg.Store.DeleteFileChunks(ctx, s.cfg.Project, abs)
	if err != nil {
		return 0, fmt.Errorf("docindex: delete chunks of %s: %w", abs, err)
	}
	return n, nil
}

// realPath is the path index_file keeps the chunks of abs under: its real
// path when it resolves inside the roots, else abs as it is (a file that
// is gone, or outside the roots).
func (s *Service) realPath(abs string) string {
	if _, _, ok := s.locate(abs); !ok {
		return abs
	}
	t, err := s.resolve(abs)
	if err != nil {
		return abs
	}
	defer t.Close()
	return t.Abs
}

// Clear deletes every document chunk of the project. Memories are not
// documents and stay: they are the user's knowledge, not a cache of files.
func (s *Service) Clear(ctx context.Context) (int, error) {
	n, err := s.cfg.Store.ClearChunks(ctx, s.cfg.Project)
	if err != nil {
		return 0, fmt.Errorf("docindex: clear chunks: %w", err)
	}
	return n, nil
}

// Stats is get_index_stats' answer.
type Stats struct {
	TotalDocuments  int
	UniqueSources   int
	SourceFiles     []string
	Namespaces      []string
	MemoryCount     int
	GoldenRuleCount int
}

// Stats summarises the index: chunks (total_documents counts chunks, as
// spec 004's example, 487 documents from 23 sources, shows), their
// sources, the namespaces of chunks and memories, and memory counts.
func (s *Service) Stats(ctx context.Context) (*Stats, error) {
	st, err := s.cfg.Store.ChunkStats(ctx, s.cfg.Project)
	if err != nil {
		return nil, fmt.Errorf("docindex: chunk stats: %w", err)
	}
	out := &Stats{
		TotalDocuments: st.Chunks,
		UniqueSources:  len(st.Sources),
		SourceFiles:    append([]string{}, st.Sources...),
		Namespaces:     append([]string{}, st.Namespaces...),
	}
	if s.cfg.Memories != nil {
		ms, err := s.cfg.Memories.MemoryStats(ctx)
		if err != nil {
			return nil, fmt.Errorf("docindex: memory stats: %w", err)
		}
		out.MemoryCount, out.GoldenRuleCount = ms.Count, ms.GoldenRules
		for _, ns := range ms.Namespaces {
			if !slices.Contains(out.Namespaces, ns) {
				out.Namespaces = append(out.Namespaces, ns)
			}
		}
		slices.Sort(out.Namespaces)
	}
	return out, nil
}
