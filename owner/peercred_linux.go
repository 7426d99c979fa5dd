package owner

import "golang.org/x/sys/unix"

// peerUID returns the user ID of a unix socket's peer (SO_PEERCRED: the
// effective user of the process that connected, or of the one that
// listened, seen from the dialling side); ok is false where the system
// cannot say.
func peerUID(fd int) (uid int, ok bool, err error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, true, err
	}
	return int(cred.Uid), true, nil
}
