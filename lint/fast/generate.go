package fast

//go:generate go run ../schema/gen -o zz_validators.go
