package vault

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"

	"github.com/vaultgraph/vaultgraph/core"
)

// fakeStore is a small core.GraphStore for the vault's tests: one project,
// the write semantics of core.GraphWriter (including resolving dangling
// links when a note claiming their key is written), call counters, and a
// switch that makes every call fail with a provider error.
type fakeStore struct {
	mu      sync.Mutex
	notes   map[string]core.Note
	fail    bool
	upserts int // notes written
	deletes int // notes deleted
	calls   int // write calls
}

var errStoreDown = errors.New("connection refused")

func newFakeStore() *fakeStore { return &fakeStore{notes: map[string]core.Note{}} }

func (s *fakeStore) setFail(fail bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = fail
}

func (s *fakeStore) down(op string) error {
	if s.fail {
		return core.NewProviderError("fakestore: "+op, errStoreDown)
	}
	return nil
}

func (s *fakeStore) snapshot() map[string]core.Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]core.Note, len(s.notes))
	for id, n := range s.notes {
		n.Links = slices.Clone(n.Links)
		out[id] = n
	}
	return out
}

func (s *fakeStore) counts() (upserts, deletes, calls int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.upserts, s.deletes, s.calls
}

func (s *fakeStore) UpsertNotes(_ context.Context, _ string, notes []core.Note) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.down("upsert"); err != nil {
		return err
	}
	s.calls++
	s.upserts += len(notes)
	claims := map[string]string{}
	for _, n := range notes {
		n.Links = slices.Clone(n.Links)
		s.notes[n.ID] = n
		for _, k := range n.Keys {
			if c, ok := claims[k]; !ok || n.ID < c {
				claims[k] = n.ID
			}
		}
	}
	for id, n := range s.notes {
		for i, l := range n.Links {
			if _, ok := s.notes[l.Target]; l.Target != "" && !ok {
				n.Links[i].Target = ""
			}
			if n.Links[i].Target == "" {
				n.Links[i].Target = claims[l.Key]
			}
		}
		s.notes[id] = n
	}
	return nil
}

func (s *fakeStore) DeleteNotes(_ context.Context, _ string, ids []string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.down("delete"); err != nil {
		return 0, err
	}
	s.calls++
	found := 0
	for _, id := range ids {
		if _, ok := s.notes[id]; ok {
			delete(s.notes, id)
			found++
		}
	}
	s.deletes += found
	for id, n := range s.notes {
		for i, l := range n.Links {
			if _, ok := s.notes[l.Target]; l.Target != "" && !ok {
				n.Links[i].Target = ""
			}
		}
		s.notes[id] = n
	}
	return found, nil
}

func (s *fakeStore) GetNote(_ context.Context, _, id string) (*core.Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.down("get"); err != nil {
		return nil, err
	}
	n, ok := s.notes[id]
	if !ok {
		return nil, core.ErrNotFound
	}
	return &n, nil
}

func (s *fakeStore) GetNotes(_ context.Context, _ string, ids []string) ([]core.Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.Note
	for _, id := range ids {
		if n, ok := s.notes[id]; ok {
			out = append(out, n)
		}
	}
	return out, s.down("get")
}

func (s *fakeStore) ResolveTitles(_ context.Context, _ string, ids []string) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for _, id := range ids {
		if n, ok := s.notes[id]; ok {
			out[id] = n.Title
		}
	}
	return out, s.down("titles")
}

func (s *fakeStore) NoteHashes(_ context.Context, _ string) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.down("hashes"); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for id, n := range s.notes {
		out[id] = n.Hash
	}
	return out, nil
}

func (s *fakeStore) NoteStates(_ context.Context, _ string, fn func(core.NoteState) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.down("states"); err != nil {
		return err
	}
	for _, n := range s.notes {
		if err := fn(core.NoteState{ID: n.ID, Path: n.Path, Hash: n.Hash, Size: n.Size, ModTime: n.ModTime, Links: n.Links}); err != nil {
			return err
		}
	}
	return nil
}

func (s *fakeStore) UnresolvedLinkers(_ context.Context, _ string, keys []string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for id, n := range s.notes {
		for _, l := range n.Links {
			if l.Target == "" && slices.Contains(keys, l.Key) {
				out = append(out, id)
				break
			}
		}
	}
	sort.Strings(out)
	return out, s.down("unresolved")
}

func (s *fakeStore) CountNotes(context.Context, string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.notes), s.down("count")
}

func (s *fakeStore) Neighbors(context.Context, string, string, core.Direction, int) ([]core.Neighbor, error) {
	return nil, nil
}

func (s *fakeStore) Degree(context.Context, string, string) (core.Degree, error) {
	return core.Degree{}, nil
}

func (s *fakeStore) NoteContext(context.Context, string, string, core.ContextQuery) (*core.NoteContext, error) {
	return nil, core.ErrNotFound
}

func (s *fakeStore) TaggedViews(context.Context, string, []string, core.TagMode, int) ([]core.NodeView, error) {
	return nil, nil
}

func (s *fakeStore) RandomView(context.Context, string, []string, func(int) int) (*core.NodeView, error) {
	return nil, nil
}

func (s *fakeStore) ShortestPath(context.Context, string, string, string) ([]string, error) {
	return nil, nil
}

func (s *fakeStore) Hubs(context.Context, string, core.HubMetric, int) ([]core.Hub, error) {
	return nil, nil
}

func (s *fakeStore) NotesByTags(context.Context, string, []string, core.TagMode, int) ([]core.Note, error) {
	return nil, nil
}

func (s *fakeStore) RandomNote(context.Context, string, []string, func(int) int) (*core.Note, error) {
	return nil, nil
}

var _ core.GraphStore = (*fakeStore)(nil)
