//go:build cueengine || devtools

package schema

import (
	"regexp"
	"testing"
)

// TestPlainPattern: the patterns whose matches are plain bytes only, and
// those that are not (unanchored, any character, a quote, a backslash or
// a control character in a class, a case-folded k or s).
func TestPlainPattern(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}$`, true},
		{`^(lifecycle|activity)\.[a-z_]+$`, true},
		{`^[0-9]{4}-[0-9]{2}[Tt][0-9]{2}([Zz]|\+00:00)$`, true},
		{`^(T-[0-9]+|[0-9a-fA-F-]{36})$`, true},
		{`^[ -!#-\[\]-~]*$`, true},
		{`^a?$`, true},
		{`^/`, false},      // open end
		{`[a-z]+$`, false}, // open start
		{`^(/|[A-Za-z]:[\\/])`, false},
		{`^[a-z]+$|^x$`, false}, // anchors inside an alternation
		{`^.+$`, false},
		{`^[^a]$`, false},
		{`^[ -~]$`, false}, // holds '"' and '\\'
		{`^a"b$`, false},
		{`^a\\b$`, false},
		{`^a\tb$`, false},
		{`^é$`, false},
		{`^(?i)ok$`, false}, // k folds to the Kelvin sign
		{`^(?i)ab$`, true},
		{`^(?m)ab$`, false}, // $ at a line end
		{`^ab\b$`, false},
		{`^[`, false},
	} {
		if got := plainPattern(c.src); got != c.want {
			t.Errorf("plainPattern(%q) = %v, want %v", c.src, got, c.want)
		}
		// What plainPattern promises, on a few texts with one stop byte.
		if c.want {
			re := regexp.MustCompile(c.src)
			for _, s := range []string{"a\"", "\\", "a\x01", "\u212a", "é", "T\"", "0\\"} {
				if re.MatchString(s) {
					t.Errorf("%q matches %q", c.src, s)
				}
			}
		}
	}
}

// TestPlainLeaf: a leaf is plain when its enum is or one of its patterns
// is.
func TestPlainLeaf(t *testing.T) {
	for _, c := range []struct {
		t    Type
		want bool
	}{
		{Type{Enum: []string{"a", "b-c"}}, true},
		{Type{Enum: []string{"a", "b\"c"}}, false},
		{Type{Enum: []string{"a", "é"}}, false},
		{Type{Enum: []string{"a", "é"}, Patterns: []string{`^[a-z]$`}}, true},
		{Type{Patterns: []string{`^/`, `^[a-z/]+$`}}, true},
		{Type{Patterns: []string{`^/`}}, false},
		{Type{MinRunes: 1}, false},
	} {
		if got := plainLeaf(&c.t); got != c.want {
			t.Errorf("plainLeaf(%+v) = %v, want %v", c.t, got, c.want)
		}
	}
}

// TestPlainLen: the patterns of one length, and those of several.
func TestPlainLen(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int
	}{
		{`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`, 36},
		{`^[0-9a-fA-F-]{36}$`, 36},
		{`^(ab|cd)x$`, 3},
		{`^(ab|c)x$`, 0},
		{`^ab?$`, 0},
		{`^a+$`, 0},
		{`^a{2,3}$`, 0},
		{`^(T-[0-9]+|[0-9a-fA-F-]{36})$`, 0},
		{`^/`, 0}, // not plain
		{`^(?i)ab$`, 2},
	} {
		if got := plainLen(&Type{Patterns: []string{c.src}}); got != c.want {
			t.Errorf("plainLen(%q) = %d, want %d", c.src, got, c.want)
		}
	}
}

// TestPlainMin: the fewest bytes of the strings of plain patterns and
// enums.
func TestPlainMin(t *testing.T) {
	for _, c := range []struct {
		t    Type
		want int
	}{
		{Type{Patterns: []string{`^[0-9]{4}-[0-9]{2}(\.[0-9]+)?Z$`}}, 8},
		{Type{Patterns: []string{`^evt-[a-z]+$`}}, 5},
		{Type{Patterns: []string{`^/`, `^a*$`}}, 0},
		{Type{Patterns: []string{`^/`}}, 0},
		{Type{Enum: []string{"abc", "de", "fghi"}}, 2},
		{Type{Enum: []string{"abc", "d\"e"}}, 0},
		{Type{Enum: []string{"abcdef"}, Patterns: []string{`^[a-z]{2,}$`}}, 6},
		{Type{Enum: []string{"ab"}, Patterns: []string{`^[a-z]{3,}$`}}, 3},
	} {
		if got := plainMin(&c.t); got != c.want {
			t.Errorf("plainMin(%+v) = %d, want %d", c.t, got, c.want)
		}
	}
}

// TestNativeFunc: a pattern whose native matcher is a named function of
// package fast gets that function's name (the generated code calls it),
// one whose matcher is a function literal or that has none gets "".
func TestNativeFunc(t *testing.T) {
	for src, want := range map[string]string{
		`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`: "matchUUID",
		`^evt-[A-Za-z0-9]+$`: "matchEvtID",
		`^/`:                 "",
		`^no native$`:        "",
	} {
		if got := nativeFunc(src); got != want {
			t.Errorf("nativeFunc(%q) = %q, want %q", src, got, want)
		}
	}
}
