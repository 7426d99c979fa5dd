//go:build unix

package owner

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

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
