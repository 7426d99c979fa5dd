package core

import "context"

// WriteObserver hears of the notes written through a store that
// ObserveWrites wraps: the web view's feed and the resource
// subscriptions follow the vault this way, whoever wrote (the watcher, a
// tool, a rename).
type WriteObserver interface {
	// BeforeWrite is called before each write with the wrapped store.
	BeforeWrite(ctx context.Context, s GraphStore, project string)
	// NotesWritten is called after a write succeeded, with the IDs of
	// the notes written (deleted false) or deleted.
	NotesWritten(ids []string, deleted bool)
}

// ObserveWrites returns s, telling o of every note it writes or deletes.
// The result is a StagedWriter when s is one.
func ObserveWrites(s GraphStore, o WriteObserver) GraphStore {
	w := &observedStore{GraphStore: s, o: o}
	if staged, ok := s.(StagedWriter); ok {
		return &observedStagedStore{observedStore: w, staged: staged}
	}
	return w
}

type observedStore struct {
	GraphStore
	o WriteObserver
}

func (s *observedStore) UpsertNotes(ctx context.Context, project string, notes []Note) error {
	s.o.BeforeWrite(ctx, s.GraphStore, project)
	if err := s.GraphStore.UpsertNotes(ctx, project, notes); err != nil {
		return err
	}
	s.o.NotesWritten(noteIDs(notes), false)
	return nil
}

func (s *observedStore) DeleteNotes(ctx context.Context, project string, ids []string) (int, error) {
	s.o.BeforeWrite(ctx, s.GraphStore, project)
	n, err := s.GraphStore.DeleteNotes(ctx, project, ids)
	if err != nil {
		return n, err
	}
	s.o.NotesWritten(ids, true)
	return n, nil
}

type observedStagedStore struct {
	*observedStore
	staged StagedWriter
}

func (s *observedStagedStore) UpsertNotesStaged(ctx context.Context, project string, notes []Note, progress func(int)) error {
	s.o.BeforeWrite(ctx, s.GraphStore, project)
	if err := s.staged.UpsertNotesStaged(ctx, project, notes, progress); err != nil {
		return err
	}
	s.o.NotesWritten(noteIDs(notes), false)
	return nil
}

func noteIDs(notes []Note) []string {
	ids := make([]string, len(notes))
	for i, n := range notes {
		ids[i] = n.ID
	}
	return ids
}
