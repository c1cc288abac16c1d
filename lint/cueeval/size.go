//go:build cueengine || devtools

package cueeval

import (
	"strconv"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Bounds of what the CUE evaluator is given. It stores the members of a
// struct (and the elements of a list) in a list that each new one is looked
// up in, so its time grows with the square of one object's size: 16,000
// members took 0.8 s, 32,000 3 s, 64,000 12 s, 100,000 about 30 s
// (measured on the build machine, 2 cores). At the bounds a payload takes
// well under 2 s; --engine fast has no such cost.
const (
	// MaxMembers is the most members of one object, or elements of one
	// array, that --engine cue evaluates (about 0.2 s).
	MaxMembers = 10_000
	// MaxValues is the most members and elements of all of a payload's
	// objects and arrays together (about 1.5 s).
	MaxValues = 100_000
)

// RuleTooLarge is the finding of a payload beyond MaxMembers or MaxValues.
const RuleTooLarge = "AL012"

// tooLarge returns the AL012 finding of a well-formed JSON text raw (its
// first byte on line line1) that holds an object or array of more than
// MaxMembers members or elements, or more than MaxValues in all; nil when
// it holds none. It reads raw once.
func tooLarge(raw []byte, line1 int) []envelope.Violation {
	var countStore [64]int
	var nonEmptyStore [64]bool
	counts, nonEmpty := countStore[:], nonEmptyStore[:] // per open container: commas so far, any value
	depth, total, biggest := 0, 0, 0
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', '[':
			if depth > 0 {
				nonEmpty[depth-1] = true
			}
			depth++
			if depth > len(counts) {
				counts, nonEmpty = append(counts, 0), append(nonEmpty, false)
			}
			counts[depth-1], nonEmpty[depth-1] = 0, false
			continue
		case '}', ']':
			if depth > 0 {
				n := counts[depth-1]
				if nonEmpty[depth-1] {
					n++
				}
				total += n
				biggest = max(biggest, n)
				depth--
			}
			continue
		case ',':
			if depth > 0 {
				counts[depth-1]++
			}
			continue
		case '"':
			inString = true
		}
		if depth > 0 {
			nonEmpty[depth-1] = true
		}
	}
	if biggest <= MaxMembers && total <= MaxValues {
		return nil
	}
	what := "an object or array of " + strconv.Itoa(biggest) + " members or elements"
	if biggest <= MaxMembers {
		what = strconv.Itoa(total) + " members and elements in all"
	}
	return []envelope.Violation{{Rule: RuleTooLarge, Line: line1, Column: 1,
		Reason: "the payload holds " + what + "; --engine cue evaluates at most " + strconv.Itoa(MaxMembers) +
			" in one object or array and " + strconv.Itoa(MaxValues) + " in all (its time grows with the square of an object's size): " +
			"not evaluated; check it with --engine fast"}}
}
