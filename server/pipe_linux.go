//go:build linux

package server

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// stdioPipeBytes is the pipe buffer asked for on stdout. Linux gives a pipe
// 64 KiB; a get_node answer at depth 1 is about 70 KB (its JSON as text and
// as structuredContent), so writing it took several rounds of the client
// draining the pipe and the server waking up again.
const stdioPipeBytes = 1 << 20

// growPipe enlarges w's pipe buffer when w is a pipe. Failure is harmless
// (the limit is /proc/sys/fs/pipe-max-size): the pipe keeps its size.
func growPipe(w io.Writer) {
	f, ok := w.(*os.File)
	if !ok {
		return
	}
	_, _ = unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, stdioPipeBytes)
}
