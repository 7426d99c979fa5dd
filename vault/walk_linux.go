package vault

import (
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// statIn states the file name in the open folder dir (d is its entry) by
// fstatat relative to the folder: the kernel looks up one name, not every
// folder of the path from the root. ok is false when it is gone.
func statIn(dir *os.File, name string, _ fs.DirEntry) (st fileStat, ok bool) {
	var sys unix.Stat_t
	for {
		err := unix.Fstatat(int(dir.Fd()), name, &sys, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return st, false
		}
		break
	}
	// As os.Lstat's FileInfo gives them (Size, ModTime, confine.Inode).
	st.size = sys.Size
	st.mtime = time.Unix(sys.Mtim.Unix())
	st.ino = sys.Ino
	return st, true
}
