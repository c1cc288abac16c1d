package fast

//go:generate go run -tags devtools ../schema/gen -o zz_validators.go
