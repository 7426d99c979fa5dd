package vault

import (
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/vaultgraph/vaultgraph/progresslog"
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

// newProgress returns a bar on stderr when stderr is a terminal and
// progress is wanted, else log lines every progresslog.Every (which a step
// shorter than that never prints).
func (m *Mirror) newProgress(total int, desc string) progress {
	switch {
	case total == 0:
		return noProgress{}
	case m.cfg.NoProgress || !term.IsTerminal(int(os.Stderr.Fd())):
		return progresslog.Start(m.log, "vault: "+desc, total, progresslog.Every)
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
