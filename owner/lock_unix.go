//go:build unix

package owner

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// abstractSockets: Linux has a socket namespace outside the file system.
var abstractSockets = runtime.GOOS == "linux"

func tryFlock(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return ErrHeld
	}
	if err != nil {
		return fmt.Errorf("owner: lock: %w", err)
	}
	return nil
}

// peerIsSameUser reports whether the peer of c runs as this process's
// user (SO_PEERCRED on Linux; elsewhere the socket file's 0600 mode and
// its folder's 0700 keep others out).
func peerIsSameUser(c net.Conn) bool {
	uc, ok := c.(*net.UnixConn)
	if !ok || runtime.GOOS != "linux" {
		return true
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	same := false
	_ = raw.Control(func(fd uintptr) {
		cred, err := peerCred(int(fd))
		same = err == nil && cred == os.Getuid()
	})
	return same
}
