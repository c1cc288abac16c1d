//go:build cueengine || devtools

package schema

import (
	"io/fs"
	"testing/fstest"
)

type mapFS map[string]string

func (m mapFS) Open(name string) (fs.File, error) {
	f := fstest.MapFS{}
	for k, v := range m {
		f[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return f.Open(name)
}
