package gitbase

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// BenchmarkCheck100MB compares a 100 MiB event log with itself at HEAD:
// Check with the file (hashed; the blob is not read) and Check-stream with
// a reader that cannot seek (the whole blob streamed from git and compared),
// next to the baselines of the same run: a plain io.Copy of the file to
// io.Discard, and git alone streaming the blob (`git cat-file blob`). MB/s
// is per byte of the log.
func BenchmarkCheck100MB(b *testing.B) {
	r := newRepo(b)
	f, err := os.Create(r.path(".work/events.jsonl"))
	if err != nil {
		if err = os.MkdirAll(r.path(".work"), 0o755); err == nil {
			f, err = os.Create(r.path(".work/events.jsonl"))
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	var size int64
	for i := 0; size < 100<<20; i++ {
		n, err := fmt.Fprintf(f, `{"event_id":"evt-%012x","event_type":"work_order.status_changed","timestamp":"2026-01-06T12:%02d:%02d.%03dZ","actor":"project-a/teams/frontend","correlation_id":"sprint-xyz789","data":{"work_order_id":"wo-%d","from_status":"open","to_status":"in_progress","reason":"picked up by agent %d after %d retries"}}`+"\n",
			i*7919, i/60%60, i%60, i%1000, i/3, i%17, i%5)
		if err != nil {
			b.Fatal(err)
		}
		size += int64(n)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	r.commit("100 MiB log")
	path := r.path(".work/events.jsonl")

	b.Run("Check", func(b *testing.B) {
		base := r.open("HEAD")
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			if fd := check(b, base, path); fd != nil {
				b.Fatalf("unchanged file: %+v", fd)
			}
		}
	})
	b.Run("Check-stream", func(b *testing.B) {
		// A reader that cannot seek: the blob is always streamed and
		// compared byte by byte.
		base := r.open("HEAD")
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			fd, err := base.Check(path, onlyReader{f})
			f.Close()
			if err != nil || fd != nil {
				b.Fatalf("unchanged file: %+v %v", fd, err)
			}
		}
	})
	b.Run("io.Copy", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			data, err := os.Open(path)
			if err == nil {
				_, err = io.Copy(io.Discard, data)
				data.Close()
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("git-cat-file-blob", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			cmd := exec.Command("git", "cat-file", "blob", "HEAD:.work/events.jsonl")
			cmd.Dir, cmd.Stdout = r.dir, io.Discard
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkThousandFiles is one run over 1,000 small logs (each appended
// to): Open, 1,000 Checks on one `git cat-file --batch-check` process, Close;
// against the naive design of one `git show REV:path` per file, in the same
// run.
func BenchmarkThousandFiles(b *testing.B) {
	const n = 1000
	r := manyLogs(b, n, 5)
	for i := range n {
		r.write(thousandName(i), jsonl(i, 6))
	}
	b.Run("cat-file-batch", func(b *testing.B) {
		for b.Loop() {
			base, err := Open(r.dir, "HEAD")
			if err != nil {
				b.Fatal(err)
			}
			for i := range n {
				if fd := check(b, base, r.path(thousandName(i))); fd != nil {
					b.Fatal(fd.Reason)
				}
			}
			if base.started != 1 {
				b.Fatalf("%d processes", base.started)
			}
			base.Close()
		}
	})
	b.Run("git-show-per-file", func(b *testing.B) {
		for b.Loop() {
			for i := range n {
				cmd := exec.Command("git", "show", "HEAD:"+strings.ReplaceAll(thousandName(i), "\\", "/"))
				cmd.Dir = r.dir
				old, err := cmd.Output()
				if err != nil {
					b.Fatal(err)
				}
				cur, err := os.ReadFile(r.path(thousandName(i)))
				if err != nil {
					b.Fatal(err)
				}
				if !bytes.HasPrefix(cur, old) {
					b.Fatal("not a prefix")
				}
			}
		}
	})
}
