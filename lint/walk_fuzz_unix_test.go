//go:build unix

package lint

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// FuzzWalk builds a tree from the fuzzer's bytes, beside a directory
// outside it: files, directories, FIFOs, unreadable directories and
// symbolic links to places inside the tree, to itself, to its parent, to /
// and to the outside directory. Invariant: every path the walk yields to be
// read resolves inside the walked directory (nothing outside the root is
// opened), a skipped path is reported with a reason, and the walk ends.
func FuzzWalk(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{3, 0, 3, 1, 3, 2, 3, 3, 3, 4, 3, 5, 1, 7, 2, 6})
	f.Add([]byte{1, 0, 0, 1, 3, 9, 5, 2, 4, 3, 3, 6})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 64 {
			ops = ops[:64]
		}
		base := t.TempDir()
		outside := filepath.Join(base, "outside")
		root := filepath.Join(base, "root")
		for _, d := range []string{outside, filepath.Join(outside, "d"), root} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(outside, "secret.jsonl"), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs := []string{root}
		names := []string{"a", "b.jsonl", ".gitignore", "c d", "sub"}
		targets := []string{".", "..", "/", outside, filepath.Join(outside, "secret.jsonl"), "../../outside/d",
			"../root", "b.jsonl", "sub", "nowhere", "/etc/passwd", "../.."}
		for i := 0; i+1 < len(ops); i += 2 {
			dir := dirs[int(ops[i+1]>>4)%len(dirs)]
			p := filepath.Join(dir, names[int(ops[i+1])%len(names)]+string(rune('0'+i%10)))
			switch ops[i] % 6 {
			case 0:
				// A new file only: writing to a FIFO made earlier would
				// block until a reader comes.
				if f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
					_, _ = f.WriteString("{}\n")
					f.Close()
				}
			case 1:
				if os.Mkdir(p, 0o755) == nil {
					dirs = append(dirs, p)
				}
			case 2:
				_ = syscall.Mkfifo(p, 0o644)
			case 3, 4:
				_ = os.Symlink(targets[int(ops[i+1])%len(targets)], p)
			case 5:
				if os.Mkdir(p, 0o000) == nil {
					defer os.Chmod(p, 0o755)
				}
			}
		}
		realRoot, err := filepath.EvalSymlinks(root)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		(&Walker{ReportSkipped: true}).Walk(root, func(in Input) bool {
			if n++; n > 10000 {
				t.Fatal("the walk does not end")
			}
			switch {
			case in.Skipped != "":
				return true
			case in.Err != nil:
				return true
			}
			real, err := filepath.EvalSymlinks(in.Path)
			if err != nil {
				t.Fatalf("yielded %s, which does not resolve: %v", in.Path, err)
			}
			if real != realRoot && !strings.HasPrefix(real, realRoot+string(filepath.Separator)) {
				t.Fatalf("yielded %s, which is %s, outside the root %s", in.Path, real, realRoot)
			}
			if fi, err := os.Stat(in.Path); err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("yielded %s, which is not a regular file", in.Path)
			}
			return true
		})
	})
}
