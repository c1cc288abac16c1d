package replay

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/envelope"
)

// FuzzReplay: whatever BASE and stream hold, Run returns an *InputError or a
// verdict, never panics; an allowing verdict has a ledger that replays to
// itself. Seeds: the golden archives.
func FuzzReplay(f *testing.F) {
	for _, path := range goldenFiles(f) {
		a := readArchive(f, path)
		_, base, streams := archiveInputs(f, a)
		for _, s := range streams {
			f.Add(base.Data, s.Data)
		}
	}
	f.Fuzz(func(t *testing.T, base, stream []byte) {
		res, err := Run(Input{Name: "base", R: bytes.NewReader(base)}, []Input{{Name: "stream", R: bytes.NewReader(stream)}}, Options{})
		var ie *InputError
		if errors.As(err, &ie) {
			return
		}
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		e := res.Envelope
		if e.Allow != (e.Code == envelope.OK) || (!e.Allow && strings.TrimSpace(e.Reason) == "") {
			t.Fatalf("malformed verdict %+v", e)
		}
		if !e.Allow {
			return
		}
		var l1, l2 bytes.Buffer
		if err := res.WriteLedger(&l1); err != nil {
			t.Fatal(err)
		}
		again, err := Run(Input{Name: "l1", R: bytes.NewReader(l1.Bytes())}, nil, Options{})
		if err != nil || !again.Envelope.Allow {
			t.Fatalf("emitted ledger does not replay: %v %+v\n%s", err, again, l1.Bytes())
		}
		if err := again.WriteLedger(&l2); err != nil || !bytes.Equal(l1.Bytes(), l2.Bytes()) {
			t.Fatalf("round trip: %v\n%s\n%s", err, l1.Bytes(), l2.Bytes())
		}
	})
}
