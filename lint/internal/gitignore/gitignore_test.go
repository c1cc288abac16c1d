package gitignore

// The tests of pattern.go and matcher.go of go-git v5.17.2
// (plumbing/format/gitignore), moved from gopkg.in/check.v1 to package
// testing: the same cases and expectations.

import "testing"

func eq[T comparable](t *testing.T, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestSimpleMatch_inclusion(t *testing.T) {
	p := ParsePattern("!vul?ano", nil)
	r := p.Match([]string{"value", "vulkano", "tail"}, false)
	eq(t, r, Include)
}

func TestMatch_domainLonger_mismatch(t *testing.T) {
	p := ParsePattern("value", []string{"head", "middle", "tail"})
	r := p.Match([]string{"head", "middle"}, false)
	eq(t, r, NoMatch)
}

func TestMatch_domainSameLength_mismatch(t *testing.T) {
	p := ParsePattern("value", []string{"head", "middle", "tail"})
	r := p.Match([]string{"head", "middle", "tail"}, false)
	eq(t, r, NoMatch)
}

func TestMatch_domainMismatch_mismatch(t *testing.T) {
	p := ParsePattern("value", []string{"head", "middle", "tail"})
	r := p.Match([]string{"head", "middle", "_tail_", "value"}, false)
	eq(t, r, NoMatch)
}

func TestSimpleMatch_withDomain(t *testing.T) {
	p := ParsePattern("middle/", []string{"value", "volcano"})
	r := p.Match([]string{"value", "volcano", "middle", "tail"}, false)
	eq(t, r, Exclude)
}

func TestSimpleMatch_onlyMatchInDomain_mismatch(t *testing.T) {
	p := ParsePattern("volcano/", []string{"value", "volcano"})
	r := p.Match([]string{"value", "volcano", "tail"}, true)
	eq(t, r, NoMatch)
}

func TestSimpleMatch_atStart(t *testing.T) {
	p := ParsePattern("value", nil)
	r := p.Match([]string{"value", "tail"}, false)
	eq(t, r, Exclude)
}

func TestSimpleMatch_inTheMiddle(t *testing.T) {
	p := ParsePattern("value", nil)
	r := p.Match([]string{"head", "value", "tail"}, false)
	eq(t, r, Exclude)
}

func TestSimpleMatch_atEnd(t *testing.T) {
	p := ParsePattern("value", nil)
	r := p.Match([]string{"head", "value"}, false)
	eq(t, r, Exclude)
}

func TestSimpleMatch_atStart_dirWanted(t *testing.T) {
	p := ParsePattern("value/", nil)
	r := p.Match([]string{"value", "tail"}, false)
	eq(t, r, Exclude)
}

func TestSimpleMatch_inTheMiddle_dirWanted(t *testing.T) {
	p := ParsePattern("value/", nil)
	r := p.Match([]string{"head", "value", "tail"}, false)
	eq(t, r, Exclude)
}

func TestSimpleMatch_atEnd_dirWanted(t *testing.T) {
	p := ParsePattern("value/", nil)
	r := p.Match([]string{"head", "value"}, true)
	eq(t, r, Exclude)
}

func TestSimpleMatch_atEnd_dirWanted_notADir_mismatch(t *testing.T) {
	p := ParsePattern("value/", nil)
	r := p.Match([]string{"head", "value"}, false)
	eq(t, r, NoMatch)
}

func TestSimpleMatch_mismatch(t *testing.T) {
	p := ParsePattern("value", nil)
	r := p.Match([]string{"head", "val", "tail"}, false)
	eq(t, r, NoMatch)
}

func TestSimpleMatch_valueLonger_mismatch(t *testing.T) {
	p := ParsePattern("val", nil)
	r := p.Match([]string{"head", "value", "tail"}, false)
	eq(t, r, NoMatch)
}

func TestSimpleMatch_withAsterisk(t *testing.T) {
	p := ParsePattern("v*o", nil)
	r := p.Match([]string{"value", "vulkano", "tail"}, false)
	eq(t, r, Exclude)
}

func TestSimpleMatch_withQuestionMark(t *testing.T) {
	p := ParsePattern("vul?ano", nil)
	r := p.Match([]string{"value", "vulkano", "tail"}, false)
	eq(t, r, Exclude)
}

func TestSimpleMatch_magicChars(t *testing.T) {
	p := ParsePattern("v[ou]l[kc]ano", nil)
	r := p.Match([]string{"value", "volcano"}, false)
	eq(t, r, Exclude)
}

func TestSimpleMatch_wrongPattern_mismatch(t *testing.T) {
	p := ParsePattern("v[ou]l[", nil)
	r := p.Match([]string{"value", "vol["}, false)
	eq(t, r, NoMatch)
}

func TestGlobMatch_fromRootWithSlash(t *testing.T) {
	p := ParsePattern("/value/vul?ano", nil)
	r := p.Match([]string{"value", "vulkano", "tail"}, false)
	eq(t, r, Exclude)
}

func TestGlobMatch_withDomain(t *testing.T) {
	p := ParsePattern("middle/tail/", []string{"value", "volcano"})
	r := p.Match([]string{"value", "volcano", "middle", "tail"}, true)
	eq(t, r, Exclude)
}

func TestGlobMatch_onlyMatchInDomain_mismatch(t *testing.T) {
	p := ParsePattern("volcano/tail", []string{"value", "volcano"})
	r := p.Match([]string{"value", "volcano", "tail"}, false)
	eq(t, r, NoMatch)
}

func TestGlobMatch_fromRootWithoutSlash(t *testing.T) {
	p := ParsePattern("value/vul?ano", nil)
	r := p.Match([]string{"value", "vulkano", "tail"}, false)
	eq(t, r, Exclude)
}

func TestGlobMatch_fromRoot_mismatch(t *testing.T) {
	p := ParsePattern("value/vulkano", nil)
	r := p.Match([]string{"value", "volcano"}, false)
	eq(t, r, NoMatch)
}

func TestGlobMatch_fromRoot_tooShort_mismatch(t *testing.T) {
	p := ParsePattern("value/vul?ano", nil)
	r := p.Match([]string{"value"}, false)
	eq(t, r, NoMatch)
}

func TestGlobMatch_fromRoot_notAtRoot_mismatch(t *testing.T) {
	p := ParsePattern("/value/volcano", nil)
	r := p.Match([]string{"value", "value", "volcano"}, false)
	eq(t, r, NoMatch)
}

func TestGlobMatch_leadingAsterisks_atStart(t *testing.T) {
	p := ParsePattern("**/*lue/vol?ano", nil)
	r := p.Match([]string{"value", "volcano", "tail"}, false)
	eq(t, r, Exclude)
}

func TestGlobMatch_leadingAsterisks_notAtStart(t *testing.T) {
	p := ParsePattern("**/*lue/vol?ano", nil)
	r := p.Match([]string{"head", "value", "volcano", "tail"}, false)
	eq(t, r, Exclude)
}

func TestGlobMatch_leadingAsterisks_mismatch(t *testing.T) {
	p := ParsePattern("**/*lue/vol?ano", nil)
	r := p.Match([]string{"head", "value", "Volcano", "tail"}, false)
	eq(t, r, NoMatch)
}

func TestGlobMatch_leadingAsterisks_isDir(t *testing.T) {
	p := ParsePattern("**/*lue/vol?ano/", nil)
	r := p.Match([]string{"head", "value", "volcano", "tail"}, false)
	eq(t, r, Exclude)
}

func TestGlobMatch_leadingAsterisks_isDirAtEnd(t *testing.T) {
	p := ParsePattern("**/*lue/vol?ano/", nil)
	r := p.Match([]string{"head", "value", "volcano"}, true)
	eq(t, r, Exclude)
}

func TestGlobMatch_leadingAsterisks_isDir_mismatch(t *testing.T) {
	p := ParsePattern("**/*lue/vol?ano/", nil)
	r := p.Match([]string{"head", "value", "Colcano"}, true)
	eq(t, r, NoMatch)
}

func TestGlobMatch_leadingAsterisks_isDirNoDirAtEnd_mismatch(t *testing.T) {
	p := ParsePattern("**/*lue/vol?ano/", nil)
	r := p.Match([]string{"head", "value", "volcano"}, false)
	eq(t, r, NoMatch)
}

func TestGlobMatch_tailingAsterisks(t *testing.T) {
	p := ParsePattern("/*lue/vol?ano/**", nil)
	r := p.Match([]string{"value", "volcano", "tail", "moretail"}, false)
	eq(t, r, Exclude)
}

func TestGlobMatch_tailingAsterisks_exactMatch(t *testing.T) {
	p := ParsePattern("/*lue/vol?ano/**", nil)
	r := p.Match([]string{"value", "volcano"}, false)
	eq(t, r, Exclude)
}

func TestGlobMatch_middleAsterisks_emptyMatch(t *testing.T) {
	p := ParsePattern("/*lue/**/vol?ano", nil)
	r := p.Match([]string{"value", "volcano"}, false)
	eq(t, r, Exclude)
}

func TestGlobMatch_middleAsterisks_oneMatch(t *testing.T) {
	p := ParsePattern("/*lue/**/vol?ano", nil)
	r := p.Match([]string{"value", "middle", "volcano"}, false)
	eq(t, r, Exclude)
}

func TestGlobMatch_middleAsterisks_multiMatch(t *testing.T) {
	p := ParsePattern("/*lue/**/vol?ano", nil)
	r := p.Match([]string{"value", "middle1", "middle2", "volcano"}, false)
	eq(t, r, Exclude)
}

func TestGlobMatch_middleAsterisks_isDir_trailing(t *testing.T) {
	p := ParsePattern("/*lue/**/vol?ano/", nil)
	r := p.Match([]string{"value", "middle1", "middle2", "volcano"}, true)
	eq(t, r, Exclude)
}

func TestGlobMatch_middleAsterisks_isDir_trailing_mismatch(t *testing.T) {
	p := ParsePattern("/*lue/**/vol?ano/", nil)
	r := p.Match([]string{"value", "middle1", "middle2", "volcano"}, false)
	eq(t, r, NoMatch)
}

func TestGlobMatch_middleAsterisks_isDir(t *testing.T) {
	p := ParsePattern("/*lue/**/vol?ano/", nil)
	r := p.Match([]string{"value", "middle1", "middle2", "volcano", "tail"}, false)
	eq(t, r, Exclude)
}

func TestGlobMatch_wrongDoubleAsterisk_mismatch(t *testing.T) {
	p := ParsePattern("/*lue/**foo/vol?ano", nil)
	r := p.Match([]string{"value", "foo", "volcano", "tail"}, false)
	eq(t, r, NoMatch)
}

func TestGlobMatch_magicChars(t *testing.T) {
	p := ParsePattern("**/head/v[ou]l[kc]ano", nil)
	r := p.Match([]string{"value", "head", "volcano"}, false)
	eq(t, r, Exclude)
}

func TestGlobMatch_wrongPattern_noTraversal_mismatch(t *testing.T) {
	p := ParsePattern("**/head/v[ou]l[", nil)
	r := p.Match([]string{"value", "head", "vol["}, false)
	eq(t, r, NoMatch)
}

func TestGlobMatch_wrongPattern_onTraversal_mismatch(t *testing.T) {
	p := ParsePattern("/value/**/v[ou]l[", nil)
	r := p.Match([]string{"value", "head", "vol["}, false)
	eq(t, r, NoMatch)
}

func TestGlobMatch_issue_923(t *testing.T) {
	p := ParsePattern("**/android/**/GeneratedPluginRegistrant.java", nil)
	r := p.Match([]string{"packages", "flutter_tools", "lib", "src", "android", "gradle.dart"}, false)
	eq(t, r, NoMatch)
}

func TestMatcher_Match(t *testing.T) {
	ps := []Pattern{
		ParsePattern("**/middle/v[uo]l?ano", nil),
		ParsePattern("!volcano", nil),
	}

	m := NewMatcher(ps)
	eq(t, m.Match([]string{"head", "middle", "vulkano"}, false), true)
	eq(t, m.Match([]string{"head", "middle", "volcano"}, false), false)
}
