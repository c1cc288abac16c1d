package output

import (
	"encoding/xml"
	"math/rand"
	"strings"
	"testing"
)

// TestAttrIsEscapeText: attr and xmlHeader are encoding/xml's EscapeText
// and Header, which the JUnit printer no longer imports.
func TestAttrIsEscapeText(t *testing.T) {
	if xmlHeader != xml.Header {
		t.Errorf("xmlHeader = %q, want %q", xmlHeader, xml.Header)
	}
	cases := []string{"", "plain", `a "quoted" 'value' & <tag> > x`, "tab\tline\nreturn\r", "\x00\x01\x1f\x7f",
		"\uFFFD", "\xff\xfe", "é中𝄞", "\ud7ff\ue000\ufffe\uffff", "a\x80b", string([]byte{0xed, 0xa0, 0x80})}
	r := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "\"", "'", "&", "<", ">", "\t", "\n", "\r", "\x00", "\x1f", "\xff", "\xc3", "é", "\uFFFD", "\uFFFE", "𝄞", " "}
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for j := r.Intn(12); j > 0; j-- {
			b.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		var want strings.Builder
		_ = xml.EscapeText(&want, []byte(s))
		if got := attr(s); got != want.String() {
			t.Errorf("attr(%q) = %q, want %q", s, got, want.String())
		}
	}
}
