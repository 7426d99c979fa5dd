//go:build darwin || freebsd

package owner

import "golang.org/x/sys/unix"

// peerUID returns the user ID of a unix socket's peer (LOCAL_PEERCRED,
// what getpeereid(3) reads: the effective user of the process that
// connected, or of the one that listened); ok is false where the system
// cannot say.
func peerUID(fd int) (uid int, ok bool, err error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, true, err
	}
	return int(cred.Uid), true, nil
}
