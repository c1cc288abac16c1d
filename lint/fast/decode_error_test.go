package fast

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

// TestDecodeError: the reason of a number beyond float64 reads the same in
// every process (go-json-experiment picks "cannot" or "unable to" at random
// once per process), with the library's layout; a syntax error is the
// library's own text.
func TestDecodeError(t *testing.T) {
	var x any
	err := json.Unmarshal([]byte(`{"a":[1,1e309]}`), &x)
	if err == nil {
		t.Fatal("1e309 decoded")
	}
	want := `json: cannot unmarshal JSON number 1e309 into Go float64 within "/a/1": value out of range`
	if got := DecodeError(err); got != want {
		t.Fatalf("DecodeError = %q, want %q", got, want)
	}
	// The library's own text differs only by its modal verb.
	if lib := strings.Replace(err.Error(), "unable to", "cannot", 1); lib != want {
		t.Fatalf("the library now writes %q: check DecodeError's layout against it", err.Error())
	}
	err = json.Unmarshal([]byte(`{"a":"\ud800"}`), &x)
	if got := DecodeError(err); got != err.Error() || !strings.Contains(got, "surrogate") {
		t.Fatalf("syntax error: DecodeError = %q, want %q", got, err.Error())
	}
}
