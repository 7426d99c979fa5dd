//go:build unix

package docindex

import "syscall"

// openNonblock keeps an open of a FIFO from blocking until a writer comes.
const openNonblock = syscall.O_NONBLOCK
