// Package progresslog logs how far a long step is, for processes whose
// stderr is not a terminal (a server started by a desktop client, a
// container, a CI job): a line with the count and the rate at a steady
// pace, whether or not the step advanced meanwhile, so a stalled step
// shows too.
package progresslog

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Every is the pace the project logs long steps at (issue 23: at least
// every 5 s).
const Every = 5 * time.Second

// Ticker logs one step's progress until Finish.
type Ticker struct {
	done atomic.Int64
	stop chan struct{}
	once sync.Once
	wg   sync.WaitGroup
}

// Start logs msg with done/total, the rate and the time so far, every
// every, until Finish.
func Start(log *slog.Logger, msg string, total int, every time.Duration) *Ticker {
	p := &Ticker{stop: make(chan struct{})}
	start := time.Now()
	p.wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				n := p.done.Load()
				secs := time.Since(start).Seconds()
				log.Info(msg, "done", n, "total", total, "per_second", float64(int(float64(n)/secs*10))/10, "seconds", int(secs))
			}
		}
	})
	return p
}

// Add counts n more units done.
func (p *Ticker) Add(n int) { p.done.Add(int64(n)) }

// Finish stops the logging; calling it again does nothing.
func (p *Ticker) Finish() {
	p.once.Do(func() { close(p.stop) })
	p.wg.Wait()
}
