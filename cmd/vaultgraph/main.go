// Command vaultgraph mirrors a folder of markdown notes into a graph and
// serves it to AI assistants over the Model Context Protocol.
//
// Run "vaultgraph --help" for the commands; the configuration keys are
// documented in the file "vaultgraph init" writes.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() { os.Exit(run()) }

// run executes the command line and returns the process exit code: 0 on
// success, 2 for a configuration or usage error, 1 for any other error.
func run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first Ctrl-C (or SIGTERM) asks the command to stop at its next
	// safe point; the signals' default action is back for the second,
	// which ends the process at once.
	go func() {
		<-ctx.Done()
		stop()
	}()
	startProfiling()
	return execute(ctx, os.Args[1:], streams{in: os.Stdin, out: os.Stdout, err: os.Stderr})
}
