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
// The result is a StagedWriter (StagedStreamer) when s is one.
func ObserveWrites(s GraphStore, o WriteObserver) GraphStore {
	w := &observedStore{GraphStore: s, o: o}
	if streamer, ok := s.(StagedStreamer); ok {
		return &observedStreamer{observedStagedStore: &observedStagedStore{observedStore: w, staged: streamer}, streamer: streamer}
	}
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

type observedStreamer struct {
	*observedStagedStore
	streamer StagedStreamer
}

// BeginStaged tells the observer before each part and, once the stream
// is finished, of every note it wrote.
func (s *observedStreamer) BeginStaged(ctx context.Context, project string, progress func(int)) (StagedStream, error) {
	st, err := s.streamer.BeginStaged(ctx, project, progress)
	if err != nil {
		return nil, err
	}
	return HookStagedStream(st, func(ctx context.Context, notes []Note) []Note {
		s.o.BeforeWrite(ctx, s.GraphStore, project)
		return notes
	}, func(ids []string) { s.o.NotesWritten(ids, false) }), nil
}

// HookStagedStream returns s, passing each part's notes through part
// (nil: as given) before it is written, and telling finished (nil: no
// one) the IDs of the notes of every part once Finish succeeded: what a
// wrapping store (core.ObserveWrites, an annotator) does around its
// StagedStreamer's streams.
func HookStagedStream(s StagedStream, part func(context.Context, []Note) []Note, finished func(ids []string)) StagedStream {
	return &hookedStream{StagedStream: s, part: part, finished: finished}
}

type hookedStream struct {
	StagedStream
	part     func(context.Context, []Note) []Note
	finished func(ids []string)
	ids      []string
}

func (h *hookedStream) Write(ctx context.Context, notes []Note) error {
	if h.part != nil {
		notes = h.part(ctx, notes)
	}
	if err := h.StagedStream.Write(ctx, notes); err != nil {
		return err
	}
	if h.finished != nil {
		h.ids = append(h.ids, noteIDs(notes)...)
	}
	return nil
}

func (h *hookedStream) Finish(ctx context.Context) error {
	if err := h.StagedStream.Finish(ctx); err != nil {
		return err
	}
	if h.finished != nil {
		h.finished(h.ids)
	}
	return nil
}

func noteIDs(notes []Note) []string {
	ids := make([]string, len(notes))
	for i, n := range notes {
		ids[i] = n.ID
	}
	return ids
}
