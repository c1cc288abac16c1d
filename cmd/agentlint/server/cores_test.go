package server

import (
	"runtime"
	"testing"

	"github.com/agentlint/agentlint/cmd/agentlint/server/serveconf"
)

// TestSetCores: the cores the server runs on. --cores wins; then the
// GOMAXPROCS environment variable; then, on a local listener, all but one;
// on a remote address, all. Run restores the value it found.
func TestSetCores(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(before)
	runtime.GOMAXPROCS(4)
	cases := []struct {
		name         string
		cores        int
		env          string
		local        bool
		want, wantOf int
	}{
		{"local: all but one", 0, "", true, 3, 4},
		{"remote: all", 0, "", false, 4, 4},
		{"GOMAXPROCS set: kept", 0, "4", true, 4, 4},
		{"--cores wins over GOMAXPROCS", 2, "4", true, 2, 4},
		{"--cores above the machine's", 8, "", false, 8, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOMAXPROCS", c.env)
			runtime.GOMAXPROCS(4)
			n, of := setCores(c.cores, c.local)
			if n != c.want || of != c.wantOf || runtime.GOMAXPROCS(0) != c.want {
				t.Errorf("setCores(%d, local %v) with GOMAXPROCS=%q = %d of %d, runtime %d; want %d of %d",
					c.cores, c.local, c.env, n, of, runtime.GOMAXPROCS(0), c.want, c.wantOf)
			}
		})
	}
	if got := serveconf.LocalCores(1); got != 1 {
		t.Errorf("LocalCores(1) = %d, want 1: a server keeps at least one core", got)
	}
}

// TestLoopbackHost: which --listen hosts are local.
func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{"localhost": true, "127.0.0.1": true, "127.1.2.3": true, "::1": true,
		"0.0.0.0": false, "10.0.0.1": false, "example.com": false, "": false, "::": false} {
		if got := serveconf.LoopbackHost(host); got != want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}
