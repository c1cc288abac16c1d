// Package fasttest holds the validators generated from the test schemas in
// cond.cue (conditional fields), for the tests of lint/fast and
// lint/cueeval. It is not part of the product.
package fasttest

//go:generate go run -tags devtools ../../internal/devcmd/schemagen -cue . -pkg fasttest -o zz_validators.go
