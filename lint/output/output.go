// Package output renders envelopes: one file per format (json.go, text.go,
// github.go).
// It knows nothing of validation; the engine hands it finished envelopes.
package output

import (
	"fmt"
	"io"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Printer writes envelopes in one format.
type Printer interface {
	// Record prints the verdict of one record or document.
	Record(e envelope.Envelope) error
	// Summary prints the closing summary envelope of `agentlint lint`.
	Summary(e envelope.Envelope) error
}

// Appender is a Printer whose record envelopes can be rendered apart from
// printing: AppendRecord appends exactly what Record would write. It keeps no
// state, so `agentlint lint` calls it from its workers concurrently and
// writes the bytes in input order.
type Appender interface {
	Printer
	AppendRecord(dst []byte, e envelope.Envelope) []byte
}

// New returns the printer for format ("json", "text" or "github"). color
// enables ANSI colors in text output.
func New(format string, w io.Writer, color bool) (Printer, error) {
	switch format {
	case "json":
		return &JSON{W: w}, nil
	case "text":
		return &Text{W: w, Color: color}, nil
	case "github":
		return &GitHub{W: w}, nil
	}
	return nil, fmt.Errorf("unknown format %q (want json, text or github)", format)
}
