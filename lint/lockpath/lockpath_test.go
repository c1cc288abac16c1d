package lockpath

import (
	"errors"
	"testing"
)

func TestNormalize(t *testing.T) {
	cases := []struct {
		in      string
		want    string
		wantErr error
	}{
		{"src/api.py", "src/api.py", nil},
		{"tests/test_api.py", "tests/test_api.py", nil},
		{"src", "src", nil},
		{"src/", "src", nil},
		{"./src/", "src", nil},
		{"  src/api  ", "src/api", nil},
		{"\tsrc\n", "src", nil},
		{"\u00a0src\u2003", "src", nil},
		{`src\api\`, "src/api", nil},
		{`src\\api\\`, "src/api", nil},
		{`.\src\api.py`, "src/api.py", nil},
		{"src/../secrets", "secrets", nil},
		{"src/./api/../handler.py", "src/handler.py", nil},
		{"a/b/../../c", "c", nil},
		{".", ".", nil},
		{"./", ".", nil},
		{"./.", ".", nil},
		{"a/..", ".", nil},
		{"/", "/", nil},
		{"//", "/", nil},
		{`\`, "/", nil},
		{"//a//b/", "/a/b", nil},
		{"/a/b/", "/a/b", nil},
		{"/../a", "/a", nil},
		{"/..", "/", nil},
		{"/a/../../b", "/b", nil},
		{"...", "...", nil},
		{"..a", "..a", nil},
		{"a/..b", "a/..b", nil},
		{"src api/x", "src api/x", nil},
		{"C:\\x\\y", "C:/x/y", nil},

		{"", "", ErrEmpty},
		{"  ", "", ErrEmpty},
		{"\t\r\n", "", ErrEmpty},
		{"..", "..", ErrEscapesRoot},
		{"../", "..", ErrEscapesRoot},
		{"../a", "../a", ErrEscapesRoot},
		{`..\a`, "../a", ErrEscapesRoot},
		{"a/../../b", "../b", ErrEscapesRoot},
		{"./../a", "../a", ErrEscapesRoot},
		{" ../../etc/passwd ", "../../etc/passwd", ErrEscapesRoot},
	}
	for _, tc := range cases {
		got, err := Normalize(tc.in)
		if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
			t.Errorf("Normalize(%q) error = %v, want %v", tc.in, err, tc.wantErr)
		}
		if got != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNormalizeIdempotent(t *testing.T) {
	for _, in := range []string{"src/", `a\b\..\c`, "/../x", ".", "/", "  x/./y/ "} {
		once, err := Normalize(in)
		if err != nil {
			t.Fatalf("Normalize(%q): %v", in, err)
		}
		twice, err := Normalize(once)
		if err != nil || twice != once {
			t.Errorf("Normalize(Normalize(%q)) = %q, %v; want %q", in, twice, err, once)
		}
	}
}

func TestErrorsAreDistinct(t *testing.T) {
	if errors.Is(ErrEmpty, ErrEscapesRoot) || errors.Is(ErrEscapesRoot, ErrEmpty) {
		t.Error("sentinel errors must be distinct")
	}
}

func TestOverlap(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"src", "src", true},
		{"src", "src/api/handler.py", true},
		{"src/api", "src/api/handler.py", true},
		{"tests/test_api.py", "tests/test_api.py", true},
		{"src/api", "src/api2", false},
		{"src/api", "src/ap", false},
		{"src/api.py", "src/api", false},
		{"tests/test_api.py", "src/api.py", false},
		{"src", "srcs/x", false},
		{"a/b", "a/c", false},
		{".", "src", true},
		{".", "a/b/c", true},
		{".", ".", true},
		{".", "/", false},
		{".", "/src", false},
		{"/", "/", true},
		{"/", "/etc/passwd", true},
		{"/", "src", false},
		{"/src", "src", false},
		{"/src", "/src/a", true},
		{"/src", "/srca", false},
		{"...", "src", false},
		{"..a", "..a/b", true},
	}
	for _, tc := range cases {
		if got := Overlap(tc.a, tc.b); got != tc.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := Overlap(tc.b, tc.a); got != tc.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v (symmetry)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestNormalizeThenOverlap(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"src/../secrets", "secrets", true},   // the reference validator says false
		{"src/../secrets", "secrets/x", true}, // ditto
		{`src\api\`, "src/api/handler.py", true},
		{"./src/", "src", true},
		{"src/", "src/api2", true},
		{"src/api/", "src/api2", false},
		{"//a//b/", "/a/b/c", true},
		{"./", "anything/at/all", true},
		{"/", "./x", false},
	}
	for _, tc := range cases {
		a, err := Normalize(tc.a)
		if err != nil {
			t.Fatalf("Normalize(%q): %v", tc.a, err)
		}
		b, err := Normalize(tc.b)
		if err != nil {
			t.Fatalf("Normalize(%q): %v", tc.b, err)
		}
		if got := Overlap(a, b); got != tc.want {
			t.Errorf("Overlap(Normalize(%q), Normalize(%q)) = Overlap(%q, %q) = %v, want %v", tc.a, tc.b, a, b, got, tc.want)
		}
	}
}

func TestNoAllocations(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _, _ = Normalize("src/api/handler.py") }); n != 0 {
		t.Errorf("Normalize of a normalized path allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = Normalize("  ") }); n != 0 {
		t.Errorf("Normalize of a blank resource allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = Overlap("src", "src/api/handler.py") }); n != 0 {
		t.Errorf("Overlap allocates %v times", n)
	}
}

var (
	sinkS string
	sinkB bool
)

func BenchmarkNormalize(b *testing.B) {
	for _, in := range []string{"src/api/handler.py", `  .\src\api\..\handler.py\ `} {
		b.Run(in, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkS, _ = Normalize(in)
			}
		})
	}
}

func BenchmarkOverlap(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkB = Overlap("src/api", "src/api/handler.py") || Overlap("src/api", "src/api2")
	}
}
