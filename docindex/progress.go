package docindex

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/vaultgraph/vaultgraph/progresslog"
	"golang.org/x/term"
)

// progressMinFiles is the smallest directory that gets a progress bar.
const progressMinFiles = 20

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

// newProgress shows a bar for big directories: on Config.Progress when
// set, else on stderr when it is a terminal (stdout belongs to the stdio
// transport, and a log file must not fill with bars).
func (s *Service) newProgress(total int, desc string) progress {
	if total < progressMinFiles {
		return noProgress{}
	}
	var w io.Writer = s.cfg.Progress
	if w == nil {
		if !term.IsTerminal(int(os.Stderr.Fd())) {
			return progresslog.Start(s.log, "docindex: "+desc, total, progresslog.Every)
		}
		w = os.Stderr
	}
	return barProgress{progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}
