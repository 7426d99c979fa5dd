package view

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Server-sent events: a page keeps one GET open on api/events and gets
// "delta" (notes to add, replace or drop) and "reload" (fetch the
// overview again: a layout finished, or too much changed at once).
const (
	eventBuffer   = 64               // events queued for a slow page before it is cut off
	eventPing     = 25 * time.Second // a comment line keeps proxies from closing an idle stream
	maxEventPages = 1000             // open streams; beyond, new ones are refused (503)
)

type broker struct {
	mu    sync.Mutex
	pages map[chan []byte]struct{}
}

func newBroker() *broker { return &broker{pages: map[chan []byte]struct{}{}} }

// publish sends an event to every page. A page whose queue is full is
// cut off: its browser reconnects and, on reconnecting, fetches the
// overview again, so it misses nothing.
func (b *broker) publish(name string, data any) {
	payload, err := json.Marshal(data)
	if err != nil {
		return // the view's own types; never
	}
	msg := []byte(fmt.Sprintf("event: %s\ndata: %s\n\n", name, payload))
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.pages {
		select {
		case ch <- msg:
		default:
			delete(b.pages, ch)
			close(ch)
		}
	}
}

func (b *broker) subscribe() (chan []byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.pages) >= maxEventPages {
		return nil, false
	}
	ch := make(chan []byte, eventBuffer)
	b.pages[ch] = struct{}{}
	return ch, true
}

func (b *broker) unsubscribe(ch chan []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.pages[ch]; ok {
		delete(b.pages, ch)
		close(ch)
	}
}

// serveEvents streams events to one page until it goes away.
func (v *View) serveEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "streaming is not supported by this connection")
		return
	}
	ch, ok := v.events.subscribe()
	if !ok {
		writeError(w, http.StatusServiceUnavailable, "too many open pages; close some and reload")
		return
	}
	defer v.events.unsubscribe(ch)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprintf(w, "retry: 1000\nevent: hello\ndata: {\"rev\":%d}\n\n", v.revision())
	fl.Flush()
	ping := time.NewTicker(eventPing)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-v.done:
			return
		case msg, open := <-ch:
			if !open {
				return
			}
			if _, err := w.Write(msg); err != nil {
				return
			}
			fl.Flush()
		case <-ping.C:
			if _, err := w.Write([]byte(": ping\n\n")); err != nil {
				return
			}
			fl.Flush()
		}
	}
}
