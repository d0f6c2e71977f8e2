package app

import (
	"net/http"
	"testing"
	"time"

	"musiccatalog/pkg/httpapi"
)

// TestDevserverHasTimeouts: every connection timeout of the devserver is
// set (a stalled client cannot hold a connection for ever) and sized so a
// 100 MB upload at 0.5 MB/s still gets through.
func TestDevserverHasTimeouts(t *testing.T) {
	srv := newDevHTTPServer(http.NotFoundHandler())
	for name, d := range map[string]time.Duration{"ReadHeaderTimeout": srv.ReadHeaderTimeout, "ReadTimeout": srv.ReadTimeout,
		"WriteTimeout": srv.WriteTimeout, "IdleTimeout": srv.IdleTimeout} {
		if d <= 0 {
			t.Errorf("%s unset", name)
		}
	}
	upload := time.Duration(float64(httpapi.RecognitionMaxFile) / 0.5e6 * float64(time.Second))
	if srv.ReadTimeout < upload || srv.WriteTimeout < srv.ReadTimeout {
		t.Errorf("read %v, write %v: a 100 MB upload at 0.5 MB/s takes %v", srv.ReadTimeout, srv.WriteTimeout, upload)
	}
}
