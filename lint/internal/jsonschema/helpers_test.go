package jsonschema_test

import (
	"bytes"
	"encoding/json"
)

// jsonNumber is a JSON number as its literal (the clauses look at fractions
// and exponents).
type jsonNumber = json.Number

// jsonUnmarshal decodes one JSON text into v with numbers as jsonNumber.
func jsonUnmarshal(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}
