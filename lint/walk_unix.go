//go:build unix

package lint

import (
	"io/fs"
	"syscall"
)

// fileID identifies a directory: device and inode.
type fileID struct{ dev, ino uint64 }

func idOf(_ string, fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, true
}
