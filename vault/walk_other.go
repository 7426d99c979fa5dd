//go:build !linux

package vault

import (
	"io/fs"
	"os"

	"github.com/vaultgraph/vaultgraph/confine"
)

// statIn states the file of entry d in the open folder dir (see the Linux
// version); ok is false when it is gone.
func statIn(_ *os.File, _ string, d fs.DirEntry) (st fileStat, ok bool) {
	info, err := d.Info()
	if err != nil {
		return st, false
	}
	return fileStat{size: info.Size(), mtime: info.ModTime(), ino: confine.Inode(info)}, true
}
