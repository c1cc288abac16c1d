package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"pgregory.net/rapid"
)

// The two D2 records (d2.go): a stream that can be read again keeps 8 bytes
// per delta_id and reads an earlier delta again to confirm a repeat; one
// that cannot (a pipe) keeps every id and digest. These tests hold both, with
// the real hash and with hashes that make ids collide, to the same verdicts
// and ledgers.

// d2Config is one way of running a replay's D2 record.
type d2Config struct {
	name string
	// pipe hides ReadAt and Seek (standard input from a pipe); noReread
	// keeps ids and digests even for documents held whole.
	pipe, noReread bool
	hash           func([]byte) uint64
}

// collide hashes every id of one length alike: every id is a possible
// repeat of every earlier id of its length, which only reading again can
// tell apart.
func collide(id []byte) uint64 { return uint64(len(id)) * 0x9E3779B97F4A7C15 }

// collideTag keeps the shard and 32-bit tag of a hashIndex slot equal for
// all ids (the tag is the low 32 bits, the shard the top 8).
func collideTag(id []byte) uint64 { return 7 }

var d2Configs = []d2Config{
	{name: "reread"},
	{name: "reread/collide", hash: collide},
	{name: "reread/collide-tag", hash: collideTag},
	{name: "pipe", pipe: true},
	{name: "pipe/collide", pipe: true, hash: collide},
	{name: "in-memory", noReread: true, hash: collideTag},
}

// pipeReader is an io.Reader and nothing else.
type pipeReader struct{ r io.Reader }

func (p pipeReader) Read(b []byte) (int, error) { return p.r.Read(b) }

// replayConfig replays base and streams (in memory) with configuration c.
func replayConfig(t tester, c d2Config, opts Options, base txtar.File, streams ...txtar.File) *Result {
	opts.hash, opts.noReread = c.hash, c.noReread
	var ins []Input
	for _, f := range streams {
		var r io.Reader = bytes.NewReader(f.Data)
		if c.pipe {
			r = pipeReader{r}
		}
		ins = append(ins, Input{Name: f.Name, R: r})
	}
	res, err := Run(Input{Name: base.Name, R: bytes.NewReader(base.Data)}, ins, opts)
	if err != nil {
		t.Fatalf("%s: replay: %v", c.name, err)
	}
	return res
}

// TestGoldenD2Records: every golden archive gives its envelope and ledger
// whichever D2 record the streams keep, also when the ids' hashes collide.
func TestGoldenD2Records(t *testing.T) {
	for _, path := range goldenFiles(t) {
		a := readArchive(t, path)
		opts, base, streams := archiveInputs(t, a)
		want := replayFiles(t, opts, base, streams...)
		wantEnv, wantLedger := envelopeJSON(t, want.Envelope), ledgerBytes(t, want)
		for _, c := range d2Configs {
			t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar")+"/"+c.name, func(t *testing.T) {
				res := replayConfig(t, c, opts, base, streams...)
				if got := envelopeJSON(t, res.Envelope); !bytes.Equal(got, wantEnv) {
					t.Errorf("envelope differs\n got: %s\nwant: %s", got, wantEnv)
				}
				if got := ledgerBytes(t, res); !bytes.Equal(got, wantLedger) {
					t.Errorf("ledger differs\n got: %s\nwant: %s", got, wantLedger)
				}
			})
		}
	}
}

// TestPropertyD2Records: random BASEs and one or two streams with exact
// repeats and reused ids (some with a byte-order mark, CRLF line endings
// and blank lines, some as orchestrator outputs) give the same envelope and
// ledger with every D2 record and hash.
func TestPropertyD2Records(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base, tasks := genBase(t)
		var streams []txtar.File
		for k := range rapid.IntRange(1, 2).Draw(t, "streams") {
			name := fmt.Sprintf("s%d", k)
			prefix := rapid.SampledFrom([]string{"d", "e"}).Draw(t, "id prefix") // two streams may share ids
			lines := genDeltas(t, tasks, []string{"T-8", "T-9"}, prefix)
			streams = append(streams, drawLayout(t, name, lines))
		}
		var opts Options
		want := replayConfig(t, d2Configs[0], opts, base, streams...)
		wantEnv, wantLedger := envelopeJSON(t, want.Envelope), ledgerBytes(t, want)
		for _, c := range d2Configs[1:] {
			res := replayConfig(t, c, opts, base, streams...)
			if got := envelopeJSON(t, res.Envelope); !bytes.Equal(got, wantEnv) {
				t.Fatalf("%s: envelope differs\n got: %s\nwant: %s", c.name, got, wantEnv)
			}
			if got := ledgerBytes(t, res); !bytes.Equal(got, wantLedger) {
				t.Fatalf("%s: ledger differs\n got: %s\nwant: %s", c.name, got, wantLedger)
			}
		}
	})
}

// drawLayout writes deltas as JSON Lines (with a byte-order mark, CRLF
// line endings or blank lines, maybe) or as an orchestrator output.
func drawLayout(t *rapid.T, name string, lines []string) txtar.File {
	switch rapid.IntRange(0, 3).Draw(t, "layout") {
	case 1:
		f := jsonl(name+".jsonl", lines)
		f.Data = append([]byte("\ufeff"), bytes.ReplaceAll(f.Data, []byte("\n"), []byte("\r\n\n"))...)
		return f
	case 2:
		return txtar.File{Name: name + ".json", Data: []byte(`{"schema_version": "1.0.0", "run_id": "3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4",
"assignments": [], "active_locks": [], "blockers": [], "next_actions": [], "ledger_delta": [` + strings.Join(lines, ",\n  ") + "]}\n")}
	}
	return jsonl(name+".jsonl", lines)
}

// TestDuplicatesAndConflicts: a stream that repeats every delta twice and
// reuses some ids with other content counts each repeat once as a
// duplicate and rejects each reuse (RP002, naming the first delta), with
// every D2 record, when every id collides with every other.
func TestDuplicatesAndConflicts(t *testing.T) {
	const n = 300
	var rows, lines []string
	for i := range n {
		rows = append(rows, fmt.Sprintf(`{"task_id": "T-%d", "status": "todo", "owner": ""}`, i))
		lines = append(lines, fmt.Sprintf(`{"task_id": "T-%d", "status": "in_progress", "owner": "agent-1", "reason": "go", "delta_id": "d-%04d"}`, i, i))
	}
	all := slices.Concat(lines, lines, lines)
	for i := 0; i < n; i += 10 { // other content, same id
		all = append(all, fmt.Sprintf(`{"task_id": "T-%d", "status": "blocked", "owner": "agent-1", "reason": "go", "delta_id": "d-%04d"}`, i, i))
	}
	base := jsonl("base.jsonl", rows)
	stream := jsonl("s.jsonl", all)
	for _, c := range d2Configs {
		t.Run(c.name, func(t *testing.T) {
			res := replayConfig(t, c, Options{}, base, stream)
			want := Counts{Deltas: 3*n + n/10, Applied: n, SkippedDuplicates: 2 * n, Rejected: n / 10}
			if res.Counts != want {
				t.Fatalf("counts %+v, want %+v\n%s", res.Counts, want, envelopeJSON(t, res.Envelope))
			}
			vs := rulesOf(res.Envelope)
			if len(vs) != n/10 || vs[0] != "RP002 /delta_id" {
				t.Fatalf("violations %v", vs)
			}
			first := res.Envelope.Details["violations"]
			if s := fmt.Sprint(first); !strings.Contains(s, `reuses delta_id "d-0000" of delta 0 of this stream`) {
				t.Fatalf("first RP002 does not name delta 0: %s", s)
			}
		})
	}
}

// TestRereadFiles replays real files: a regular file is read again (also
// when the input starts after the file's first bytes, and when every id
// collides), a pipe is not, and both give the same verdict and ledger.
func TestRereadFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: replaying 50 deltas of 1000 records from regular files and pipes (~1 s) runs in `make test`")
	}
	dir := t.TempDir()
	basePath, streamPath := writeBenchDataN(t, dir, 50, 1000)
	data, err := os.ReadFile(streamPath)
	if err != nil {
		t.Fatal(err)
	}
	// Every delta twice, and a prefix the input skips.
	shifted := filepath.Join(dir, "shifted.jsonl")
	prefix := "this line is not part of the input\n"
	if err := os.WriteFile(shifted, slices.Concat([]byte(prefix), data, data), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(hash func([]byte) uint64, open func() (io.Reader, func())) (*Result, []byte) {
		bf, err := os.Open(basePath)
		if err != nil {
			t.Fatal(err)
		}
		defer bf.Close()
		r, done := open()
		defer done()
		res, err := Run(Input{Name: basePath, R: bf}, []Input{{Name: "stream", R: r}}, Options{hash: hash})
		if err != nil {
			t.Fatal(err)
		}
		return res, ledgerBytes(t, res)
	}
	file := func() (io.Reader, func()) {
		f, err := os.Open(shifted)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Seek(int64(len(prefix)), io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if _, _, ok := seekable(f); !ok {
			t.Fatal("a regular file is not seekable")
		}
		return f, func() { f.Close() }
	}
	pipe := func() (io.Reader, func()) {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		if _, _, ok := seekable(pr); ok {
			t.Fatal("a pipe is seekable")
		}
		go func() {
			_, _ = pw.Write(slices.Concat(data, data))
			pw.Close()
		}()
		return pr, func() { pr.Close() }
	}
	want, wantLedger := run(nil, pipe)
	if !want.Envelope.Allow || want.Counts.Applied != 1000 || want.Counts.SkippedDuplicates != 1000 {
		t.Fatalf("pipe: %s %+v", want.Envelope.Reason, want.Counts)
	}
	for _, hash := range []func([]byte) uint64{nil, collide, collideTag} {
		got, gotLedger := run(hash, file)
		if a, b := envelopeJSON(t, got.Envelope), envelopeJSON(t, want.Envelope); !bytes.Equal(a, b) {
			t.Fatalf("file and pipe differ\nfile: %s\npipe: %s", a, b)
		}
		if !bytes.Equal(gotLedger, wantLedger) {
			t.Fatal("ledgers differ")
		}
	}
}

// changingReader reads one content and, read again at an offset, another
// (a file rewritten during the replay).
type changingReader struct {
	*bytes.Reader
	again []byte
}

func (c changingReader) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(c.again).ReadAt(p, off)
}

// TestRereadChanged: a stream whose earlier delta reads back differently is
// an *InputError, not a verdict.
func TestRereadChanged(t *testing.T) {
	base := `{"task_id": "T-1", "status": "todo", "owner": ""}` + "\n"
	d := `{"task_id": "T-1", "status": "in_progress", "owner": "agent-1", "reason": "go", "delta_id": "d-1"}` + "\n"
	other := strings.Replace(d, "d-1", "d-2", 1)
	for _, again := range []string{other + d, ""} {
		in := changingReader{bytes.NewReader([]byte(d + d)), []byte(again)}
		_, err := Run(Input{Name: "base", R: strings.NewReader(base)}, []Input{{Name: "s", R: in}}, Options{})
		var ie *InputError
		if !errors.As(err, &ie) || ie.Name != "s" {
			t.Fatalf("read again as %q: err %v, want an *InputError of s", again, err)
		}
	}
}

// writeBenchDataN writes a BASE of tasks rows and a stream of deltas.
func writeBenchDataN(t *testing.T, dir string, tasks, deltas int) (string, string) {
	base, stream := filepath.Join(dir, "base.jsonl"), filepath.Join(dir, "stream.jsonl")
	var b, s bytes.Buffer
	for i := range tasks {
		fmt.Fprintf(&b, `{"task_id": "T-%d", "status": "todo", "owner": ""}`+"\n", i)
	}
	for i := range deltas {
		status := "in_progress"
		if i >= deltas-tasks {
			status = "done"
		}
		fmt.Fprintf(&s, `{"task_id": "T-%d", "status": %q, "owner": "agent-1", "reason": "r%d", "delta_id": "d-%d"}`+"\n", i%tasks, status, i, i)
	}
	if err := os.WriteFile(base, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stream, s.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return base, stream
}

// TestHashIndex holds the hashIndex to a Go map: every position found is
// the one added for an equal id, across shard growth, with the real hash
// and with colliding ones.
func TestHashIndex(t *testing.T) {
	for _, hash := range []func([]byte) uint64{testHash(), collide, collideTag} {
		rapid.Check(t, func(t *rapid.T) {
			var ix hashIndex
			ids := map[uint32]string{}
			first := map[string]uint32{}
			n := rapid.IntRange(0, 3000).Draw(t, "n")
			mod := rapid.IntRange(1, 2*n+1).Draw(t, "mod")
			for i := range n {
				id := fmt.Sprintf("d-%d", rapid.IntRange(0, mod).Draw(t, "id"))
				if hash(nil) == 7 && i > 300 {
					break // every probe visits every entry
				}
				h := hash([]byte(id))
				match := func(p uint32) bool { return ids[p] == id }
				pos, at, ok := ix.find(h, match)
				if want, dup := first[id]; ok != dup || (ok && pos != want) {
					t.Fatalf("id %q: found %v at %d, want %v at %d", id, ok, pos, dup, want)
				}
				if !ok {
					ix.insert(at, h, uint32(i))
					ids[uint32(i)], first[id] = id, uint32(i)
				}
				if p, ok := ix.lookup(h, match); !ok || p != first[id] {
					t.Fatalf("lookup %q: %d %v", id, p, ok)
				}
			}
			if ix.len() != len(first) {
				t.Fatalf("%d entries, want %d", ix.len(), len(first))
			}
		})
	}
}
