//go:build !unix

package owner

import (
	"errors"
	"net"
	"os"
	"time"
)

// tryFlock: off unix systems every process owns its store alone, as
// before (the store's own lock refuses a second one).
func tryFlock(*os.File) error { return nil }

// errNoSocket: off unix systems no process serves another (the caller
// does not share the store there).
var errNoSocket = errors.New("owner: no owner socket on this system")

// Listen is not offered off unix systems.
func (l *Lock) Listen() (net.Listener, error) { return nil, errNoSocket }

// Dial is not offered off unix systems.
func Dial(string, time.Duration) (net.Conn, error) { return nil, errNoSocket }
