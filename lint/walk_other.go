//go:build !unix

package lint

import (
	"io/fs"
	"path/filepath"
)

// fileID identifies a directory by its path with symbolic links resolved
// (systems without inodes).
type fileID struct{ path string }

func idOf(path string, _ fs.FileInfo) (fileID, bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fileID{}, false
	}
	abs, err := filepath.Abs(real)
	return fileID{abs}, err == nil
}
