package loadgen

import (
	"net"
	"net/http"
	"testing"
	"time"
)

// TestPaced: with Rate, the load is spread over Requests/Rate seconds (not
// sent as fast as the server answers), and every answer is counted.
func TestPaced(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "2")
		_, _ = w.Write([]byte("{}"))
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	cfg := Config{Network: "tcp", Addr: ln.Addr().String(), Method: "POST", Path: "/", Body: []byte("{}"), Conns: 4, Requests: 200, Timeout: 5 * time.Second}
	fast, err := Run(cfg)
	if err != nil || fast.Errors > 0 || fast.Requests != 200 {
		t.Fatalf("unpaced: %+v %v", fast, err)
	}
	cfg.Rate = 1000 // 200 requests: 0.2 s
	paced, err := Run(cfg)
	if err != nil || paced.Errors > 0 || paced.Requests != 200 {
		t.Fatalf("paced: %+v %v", paced, err)
	}
	if paced.Wall < 190*time.Millisecond || paced.Wall > 2*time.Second {
		t.Errorf("paced at 1000/s, 200 requests took %v, want about 0.2 s", paced.Wall)
	}
}
