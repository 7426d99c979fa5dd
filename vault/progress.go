package vault

import (
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress shows how far a long step is: a bar on a terminal, a log line
// every progressLogEvery otherwise (a server started by a desktop client,
// a container), nothing for steps too small to be worth it.
type progress interface {
	Add(n int)
	Finish()
}

type noProgress struct{}

func (noProgress) Add(int) {}
func (noProgress) Finish() {}

type barProgress struct{ bar *progressbar.ProgressBar }

func (b barProgress) Add(n int) { _ = b.bar.Add(n) }
func (b barProgress) Finish()   { _ = b.bar.Finish() }

// progressLogEvery is how often a long step logs where it stands when no
// terminal shows a bar (issue 23: at least every 5 s).
const progressLogEvery = 5 * time.Second

// logProgress logs a long step's count and rate every progressLogEvery,
// whether or not it advanced meanwhile (a step that stalls says so).
type logProgress struct {
	done  atomic.Int64
	stop  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
	start time.Time
}

func newLogProgress(log *slog.Logger, total int, desc string, every time.Duration) *logProgress {
	p := &logProgress{stop: make(chan struct{}), start: time.Now()}
	p.wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				n := p.done.Load()
				secs := time.Since(p.start).Seconds()
				log.Info("vault: "+desc, "done", n, "total", total, "per_second", float64(int(float64(n)/secs*10))/10, "seconds", int(secs))
			}
		}
	})
	return p
}

func (p *logProgress) Add(n int) { p.done.Add(int64(n)) }
func (p *logProgress) Finish() {
	p.once.Do(func() { close(p.stop) })
	p.wg.Wait()
}

// newProgress returns a bar on stderr when stderr is a terminal and
// progress is wanted, else log lines every progressLogEvery (which a step
// shorter than that never prints).
func (m *Mirror) newProgress(total int, desc string) progress {
	switch {
	case total == 0:
		return noProgress{}
	case m.cfg.NoProgress || !term.IsTerminal(int(os.Stderr.Fd())):
		return newLogProgress(m.log, total, desc, progressLogEvery)
	}
	return barProgress{progressbar.NewOptions(total,
		progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}
