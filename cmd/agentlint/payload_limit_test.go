package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestValidatePayloadLimit: a payload over the limit (64 MiB, lowered
// here) is one envelope, allow false, MISSING_REQUIRED_INPUT, exit 2, and
// no more than limit+1 bytes are read; a payload at the limit is
// validated.
func TestValidatePayloadLimit(t *testing.T) {
	defer func(m int64) { maxPayload = m }(maxPayload)
	maxPayload = 64
	big := `{"timestamp":"2026-02-14T19:00:05Z","task_id":"T-1","pad":"` + strings.Repeat("x", 10000) + `"}` + "\n"

	in := &countingReader{r: strings.NewReader(big)}
	var out, errb bytes.Buffer
	if code := run([]string{"validate", "--kind", "operator/worklog", "-"}, in, &out, &errb); code != 2 {
		t.Errorf("stdin: exit %d, want 2; stdout %s", code, out.String())
	}
	if got := out.String(); strings.Count(got, "\n") != 1 ||
		!strings.HasPrefix(got, `{"allow":false,"code":"MISSING_REQUIRED_INPUT","reason":"-: the payload is larger than 64 bytes, the most validate reads`) {
		t.Errorf("stdin: stdout %q", got)
	}
	if in.n > int(maxPayload)+1+4096 { // one read buffer beyond the limit at most
		t.Errorf("read %d bytes of a payload over a %d-byte limit", in.n, maxPayload)
	}

	f := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(f, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"validate", "--kind", "operator/result", f}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Errorf("file: exit %d, want 2", code)
	}
	if got := out.String(); !strings.Contains(got, `"reason":"`+f+`: the payload is larger than 64 bytes`) || !strings.Contains(got, `"details":{"file":"`+f+`"}`) {
		t.Errorf("file: stdout %q", got)
	}

	// At the limit: validated as usual (an empty object: denied, exit 1).
	maxPayload = 3
	out.Reset()
	if code := run([]string{"validate", "--kind", "operator/result", "-"}, strings.NewReader("{}\n"), &out, &errb); code != 1 || strings.Contains(out.String(), "larger than") {
		t.Errorf("at the limit: exit %d, stdout %q", code, out.String())
	}
}
