// Package lockpath normalizes lock resources and decides whether two of them
// overlap, as decided in cue/README.md (operator, seed 001), "Lock
// resources".
//
// Seed 001 calls a resource "a normalized path-like string" without saying
// how to normalize it; cue/README.md fixes the rule: trim, '\' → '/', POSIX
// clean (path.Clean, which also resolves "." and ".."), drop a trailing '/'.
// Unlike the reference validator, which keeps "..", "src/../secrets" is
// "secrets" here and so conflicts with a lock on "secrets".
//
// The package is purely lexical: it never touches the file system, so
// symbolic links are not resolved and case is significant.
package lockpath

import (
	"errors"
	"path"
	"strings"
)

// ErrEmpty is returned by Normalize for a resource that is empty or only
// white space. Callers report it as SCHEMA_INVALID (cue/README.md,
// "Lock resources": "Empty after that: SCHEMA_INVALID"; conformance case
// 01-assignment-invalid-empty-normalized-lock).
var ErrEmpty = errors.New("lockpath: empty resource")

// ErrEscapesRoot is returned by Normalize for a relative resource whose first
// element after cleaning is ".." ("..", "../x", "a/../../b"). Callers report
// it as SCOPE_VIOLATION (README, Codes and precedence, SCOPE_VIOLATION: "any
// resource that escapes the root ('..' first after cleaning)").
var ErrEscapesRoot = errors.New("lockpath: resource escapes the root")

// Normalize returns the normalized form of a lock resource (cue/README.md, "Lock resources"):
//
//  1. trim leading and trailing white space (strings.TrimSpace, Unicode
//     white space);
//  2. replace every '\' with '/';
//  3. clean it with path.Clean: repeated '/' collapse, "." elements go,
//     "x/.." pairs go, ".." right after a leading '/' goes ("/../a" → "/a":
//     an absolute path cannot escape), and a trailing '/' is dropped except
//     for "/" itself.
//
// The result is "." for the whole relative tree ("./", "a/.."), "/" for the
// absolute root, or a path without "." elements, without a trailing '/' and,
// when relative, not starting with "..".
//
// Errors (compare with errors.Is): ErrEmpty, with result "", when the
// resource is empty after trimming (path.Clean would say "."; a blank
// resource is an error, not the whole tree); ErrEscapesRoot, with the
// cleaned path as result so that it can be reported, when a relative
// resource starts with ".." after cleaning.
//
// Normalize does not allocate when the resource is already normalized.
func Normalize(resource string) (string, error) {
	r := strings.TrimSpace(resource)
	if r == "" {
		return "", ErrEmpty
	}
	r = strings.ReplaceAll(r, `\`, "/")
	r = path.Clean(r)
	if r == ".." || strings.HasPrefix(r, "../") {
		return r, ErrEscapesRoot
	}
	return r, nil
}

// Overlap reports whether two normalized resources (results of Normalize
// without error) overlap, that is, whether locks on both would cover a
// common path (cue/README.md, "Lock resources": "Overlap is by path
// element"):
//
//   - equal resources overlap;
//   - one overlaps the other when it is a path-element prefix of it: "src"
//     and "src/api/handler.py" overlap, "src/api" and "src/api2" do not;
//   - "." is the whole relative tree and overlaps every relative resource;
//   - "/" overlaps every absolute resource;
//   - a relative and an absolute resource never overlap.
//
// Overlap is symmetric. It compares bytes, so inputs that are not normalized
// give lexical answers ("src/" and "src" do not overlap): normalize first.
// The rule that locks of one task_id never conflict belongs to the caller.
func Overlap(a, b string) bool {
	if a == b {
		return true
	}
	aAbs, bAbs := strings.HasPrefix(a, "/"), strings.HasPrefix(b, "/")
	if aAbs != bAbs {
		return false
	}
	if a == "." || b == "." || a == "/" || b == "/" {
		// "." with a relative path, "/" with an absolute one (same kind, checked above).
		return true
	}
	return isParent(a, b) || isParent(b, a)
}

// isParent reports whether b lies strictly below a: b starts with a + "/".
func isParent(a, b string) bool {
	return len(b) > len(a) && b[len(a)] == '/' && b[:len(a)] == a
}
