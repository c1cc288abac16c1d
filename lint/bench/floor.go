package bench

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// IsValidLines is the floor `make bench` compares agentlint with: it reads
// r line by line (one buffered reader, no copy for lines shorter than 1 MiB)
// and checks every line that is not blank with jsontext.Value.IsValid (RFC
// 8259 syntax and UTF-8 only: no schema, no positions, no output). It
// returns the number of valid and invalid lines.
func IsValidLines(r io.Reader) (valid, invalid int, err error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if jsontext.Value(line).IsValid() {
				valid++
			} else {
				invalid++
			}
		}
		if err == io.EOF {
			return valid, invalid, nil
		}
		if err != nil {
			return valid, invalid, err
		}
	}
}
