package vault

import (
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress shows how far a long step is; the no-op version is used when
// nobody watches a terminal.
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

// newProgress returns a progress bar on stderr when stderr is a terminal
// and progress is wanted, else a no-op.
func (m *Mirror) newProgress(total int, desc string) progress {
	if m.cfg.NoProgress || total == 0 || !term.IsTerminal(int(os.Stderr.Fd())) {
		return noProgress{}
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
