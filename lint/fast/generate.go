package fast

//go:generate go run -tags devtools ../internal/devcmd/schemagen -o zz_validators.go
