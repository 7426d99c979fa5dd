package owner

import "golang.org/x/sys/unix"

// peerCred returns the user ID of a unix socket's peer.
func peerCred(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
