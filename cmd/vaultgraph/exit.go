package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/vaultgraph/vaultgraph/config"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // the command failed
	exitUsage = 2 // bad configuration, flags or arguments: fix the invocation
)

// streams are where commands read and write. Only command output (status,
// version, help, and later the stdio transport) goes to out; logs and error
// messages go to err.
type streams struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}

// execute runs the command line args and returns the exit code, having
// printed any error to s.err.
func execute(ctx context.Context, args []string, s streams) int {
	root := newRootCommand(s)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		printError(s.err, err)
	}
	return exitCode(err)
}

// exitCode maps an error to the process exit code.
func exitCode(err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case config.IsConfigError(err), errors.As(err, &ue):
		return exitUsage
	}
	return exitError
}

// printError writes err for a person: every configuration problem on a line
// of its own, a pointer to --help after a usage error.
func printError(w io.Writer, err error) {
	var ce *config.Error
	var ue *usageError
	switch {
	case errors.As(err, &ce):
		fmt.Fprintln(w, "vaultgraph: invalid configuration:")
		for _, p := range ce.Problems {
			fmt.Fprintln(w, "  "+p.Line())
		}
	case errors.As(err, &ue):
		fmt.Fprintf(w, "vaultgraph: %v\nRun '%s --help' for usage.\n", ue.err, ue.cmd.CommandPath())
	default:
		fmt.Fprintf(w, "vaultgraph: %v\n", err)
	}
}

// usageError is a mistake in the command line itself: an unknown command or
// flag, a wrong number of arguments, a malformed argument.
type usageError struct {
	cmd *cobra.Command
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usageArgs marks the errors of an argument check as usage errors.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return &usageError{cmd: cmd, err: err}
		}
		return nil
	}
}

// usagef returns a usage error of cmd.
func usagef(cmd *cobra.Command, format string, args ...any) error {
	return &usageError{cmd: cmd, err: fmt.Errorf(format, args...)}
}
