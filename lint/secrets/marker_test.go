package secrets

import "testing"

// TestMarkerClean: the text Redact writes in place of a secret is no
// secret itself, alone or after a secret-like name.
func TestMarkerClean(t *testing.T) {
	for _, p := range Patterns {
		for _, s := range []string{"<secret: " + p.Name + ">", "x=<secret: " + p.Name + ">", "password: <secret: " + p.Name + ">", "<secret: " + p.Name + "> (the text is withheld: it holds a secret)"} {
			if q, ok := Scan(s); ok {
				t.Errorf("%q matches %s", s, q)
			}
		}
	}
}
