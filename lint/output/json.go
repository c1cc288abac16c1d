package output

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/agentlint/agentlint/lint/envelope"
)

// JSON prints JSON Lines: one compact envelope per line (CONTRACT.md section
// 2). Map keys are sorted, so output is deterministic.
type JSON struct {
	W   io.Writer
	buf bytes.Buffer
}

// Record implements Printer.
func (p *JSON) Record(e envelope.Envelope) error { return p.write(e) }

// Summary implements Printer.
func (p *JSON) Summary(e envelope.Envelope) error { return p.write(e) }

func (p *JSON) write(e envelope.Envelope) error {
	p.buf.Reset()
	enc := json.NewEncoder(&p.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return err
	}
	_, err := p.W.Write(p.buf.Bytes())
	return err
}
