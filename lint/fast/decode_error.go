package fast

import (
	"errors"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
)

// DecodeError returns the message of err, an error of json.Unmarshal (or
// jsontext) for text that decoding into Go values cannot hold, worded the
// same in every run: "json: cannot unmarshal JSON number 1e309 into Go
// float64 within "/a/1": value out of range" (README, Codes and precedence,
// AL001). go-json-experiment words a *json.SemanticError with "cannot" or
// "unable to", chosen at random once per process on purpose (so that no one
// depends on its text); a reason agentlint prints must not change from one
// run to the next (goldens, baselines, a diff in CI), so a semantic error is
// written here from its fields, with "cannot" and the library's layout.
// Any other error (a jsontext.SyntacticError) is its Error().
func DecodeError(err error) string {
	var se *json.SemanticError
	if !errors.As(err, &se) {
		return err.Error()
	}
	var b strings.Builder
	b.WriteString("json: cannot unmarshal")
	switch se.JSONKind {
	case 'n':
		b.WriteString(" JSON null")
	case 'f', 't':
		b.WriteString(" JSON boolean")
	case '"':
		b.WriteString(" JSON string")
	case '0':
		b.WriteString(" JSON number")
	case '{', '}':
		b.WriteString(" JSON object")
	case '[', ']':
		b.WriteString(" JSON array")
	}
	if n := len(se.JSONValue); n > 0 && n < 100 {
		b.WriteByte(' ')
		b.Write(se.JSONValue)
	}
	if se.GoType != nil {
		b.WriteString(" into Go ")
		b.WriteString(se.GoType.String())
	}
	if se.JSONPointer != "" {
		b.WriteString(" within ")
		b.WriteString(strconv.Quote(string(se.JSONPointer)))
	}
	if se.Err != nil {
		b.WriteString(": ")
		b.WriteString(DecodeError(se.Err))
	}
	return b.String()
}
