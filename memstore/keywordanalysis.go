package memstore

import (
	"runtime"
	"sync"

	"github.com/vaultgraph/vaultgraph/core"
)

// The keyword analysis of a write's notes (their title and content as
// kwIndex counts them), done on every CPU before the write takes the
// graph's lock: analyzeNotes for a batch at once, analyzeAhead for a
// staged write that goes through its batch in order.

// noteTerms gives the keyword analysis of the i-th note of a batch: what
// keyword search sees of a note, its title and its content (kwCounter.add).
type noteTerms func(i int) (terms []string, counts []int32, length int32)

// parallelAnalysis is the batch size from which UpsertNotes analyses the
// notes' keyword text on every CPU before it takes the write lock: a first
// sync of 100k notes spent seconds tokenizing on one core.
const parallelAnalysis = 256

// analyzeChunk analyses the notes of batch in chunk c (aheadChunk notes)
// into out (nil: a new one).
func analyzeChunk(c *kwCounter, batch []core.Note, chunk int, out *kwTerms) *kwTerms {
	notes := batch[chunk*aheadChunk : min((chunk+1)*aheadChunk, len(batch))]
	if out == nil {
		size := 0
		for i := range notes {
			size += len(notes[i].Title) + len(notes[i].Content)
		}
		// About one distinct term in 12 bytes of text, a lowered one in 40.
		out = &kwTerms{
			ends:    make([]int32, 0, len(notes)),
			lengths: make([]int32, 0, len(notes)),
			terms:   make([]string, 0, size/12),
			counts:  make([]int32, 0, size/12),
			text:    make([]byte, 0, size/40),
		}
	}
	for i := range notes {
		c.add(out, notes[i].Title, notes[i].Content)
	}
	return out
}

// reset empties t for another chunk, keeping its arrays: nothing may hold
// a term of it any more.
func (t *kwTerms) reset() {
	clear(t.terms) // no window into a note's text is kept alive
	t.terms, t.counts, t.ends, t.lengths, t.text = t.terms[:0], t.counts[:0], t.ends[:0], t.lengths[:0], t.text[:0]
}

// analyzeNotes returns the keyword analysis of each note of batch,
// computed now: on every CPU for a large batch.
func analyzeNotes(batch []core.Note) noteTerms {
	chunks := make([]*kwTerms, (len(batch)+aheadChunk-1)/aheadChunk)
	workers := 1
	if len(batch) >= parallelAnalysis {
		workers = min(runtime.GOMAXPROCS(0), len(chunks))
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var c kwCounter
			for k := w; k < len(chunks); k += workers {
				chunks[k] = analyzeChunk(&c, batch, k, nil)
			}
		})
	}
	wg.Wait()
	return func(i int) ([]string, []int32, int32) { return chunks[i/aheadChunk].note(i % aheadChunk) }
}

// progressStep is how many notes a staged write stores between two
// progress reports.
const progressStep = 1024

// aheadChunk notes are analysed together by a worker of analyzeAhead, at
// most aheadChunks chunks ahead of what the write has reported passing.
const (
	aheadChunk  = 256
	aheadChunks = 16
)

// The chunk the write waits for lies less than progressStep/aheadChunk
// chunks past its last report; a narrower window would stop the workers
// short of it for good. This constant does not compile if it is narrower.
const _ = uint(aheadChunks - progressStep/aheadChunk)

// aheadAnalysis is the keyword analysis of a batch, computed by workers
// while the write goes through the batch in order.
type aheadAnalysis struct {
	batch   []core.Note
	results []*kwTerms      // by chunk; dropped once the write is past it
	ready   []chan struct{} // by chunk: closed when its result is set

	mu      sync.Mutex
	moved   *sync.Cond // the write passed notes, or stop was called
	next    int        // the next chunk a worker takes
	passedN int        // notes the write has passed
	stopped bool
}

// spareTerms holds the analyses writes are done with (reset), for the
// next chunk's: a first sync streams its notes in many staged writes of a
// few chunks each, and a spare kept by each write was reused by few of
// its chunks (105 MB of a 100k sync's garbage).
var spareTerms sync.Pool

// analyzeAhead starts analysing batch on all CPUs but one (the write's),
// chunk by chunk in order, at most aheadChunks chunks ahead of what the
// write has passed, so that the analyses of 100k notes are not all alive
// at once. A chunk the write has passed already is not analysed. The
// caller takes the analyses in order with terms, reports the write's
// progress with passed and must call stop.
func analyzeAhead(batch []core.Note) *aheadAnalysis {
	chunks := (len(batch) + aheadChunk - 1) / aheadChunk
	a := &aheadAnalysis{batch: batch, results: make([]*kwTerms, chunks), ready: make([]chan struct{}, chunks)}
	for c := range a.ready {
		a.ready[c] = make(chan struct{})
	}
	a.moved = sync.NewCond(&a.mu)
	for range max(1, runtime.GOMAXPROCS(0)-1) {
		go func() {
			var counter kwCounter
			for {
				c, skip, ok := a.take(chunks)
				if !ok {
					return
				}
				if !skip {
					out, _ := spareTerms.Get().(*kwTerms)
					a.results[c] = analyzeChunk(&counter, batch, c, out)
				}
				close(a.ready[c])
			}
		}()
	}
	return a
}

// terms is the analysis of note i, waiting for it; the notes are taken in
// order, and a chunk's analysis is let go of once the next is taken.
func (a *aheadAnalysis) terms(i int) ([]string, []int32, int32) {
	c := i / aheadChunk
	<-a.ready[c]
	if c > 0 && a.results[c-1] != nil {
		done := a.results[c-1]
		a.results[c-1] = nil
		done.reset()
		spareTerms.Put(done)
	}
	if a.results[c] == nil { // skipped: the write was past it (never, taken in order)
		var counter kwCounter
		a.results[c] = analyzeChunk(&counter, a.batch, c, nil)
	}
	return a.results[c].note(i % aheadChunk)
}

// take gives a worker the next chunk, waiting while it is too far ahead of
// the write; skip says the write has passed it already. ok is false when
// there is nothing more to do.
func (a *aheadAnalysis) take(chunks int) (c int, skip, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	// The write, inside chunk c, has reported at least the notes before
	// the progressStep it is in, so the chunk it waits for is always in
	// the window.
	for !a.stopped && a.next < chunks && a.next >= a.passedN/aheadChunk+aheadChunks {
		a.moved.Wait()
	}
	if a.stopped || a.next >= chunks {
		return 0, false, false
	}
	c = a.next
	a.next++
	return c, c < a.passedN/aheadChunk, true
}

// passed tells the workers that the write has stored n more notes.
func (a *aheadAnalysis) passed(n int) {
	a.mu.Lock()
	a.passedN += n
	a.mu.Unlock()
	a.moved.Broadcast()
}

// stop makes the workers quit once they finish their chunk.
func (a *aheadAnalysis) stop() {
	a.mu.Lock()
	a.stopped = true
	a.mu.Unlock()
	a.moved.Broadcast()
}
