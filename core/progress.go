package core

import "context"

// ProgressFunc hears how far a long operation is: done of total units
// (total 0 when unknown), with a short message.
type ProgressFunc func(done, total int, msg string)

type progressKey struct{}

// WithProgress returns a context that carries f: services doing long work
// (indexing a directory, a first sync a tool waits for) report to it with
// ReportProgress, and the tool layer turns the reports into MCP progress
// notifications when the client asked for them. core knows nothing of MCP.
func WithProgress(ctx context.Context, f ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// ReportProgress tells the ProgressFunc ctx carries, if any, how far the
// work is.
func ReportProgress(ctx context.Context, done, total int, msg string) {
	if f, _ := ctx.Value(progressKey{}).(ProgressFunc); f != nil {
		f(done, total, msg)
	}
}
