package app

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"musiccatalog/pkg/recognition"
)

// localUploadTrigger stands in for S3 → SQS → recognition-prepare on the
// devserver: after a successful PUT through a signed URL (h is the local
// blob handler, serving {base}/_blob/{key}) of an object under
// video-recognition/, it prepares the upload in the background, one at a
// time. A job submitted meanwhile waits for that work instead of
// repeating it (recognition.Service shares a running prepare).
func (d *Deps) localUploadTrigger(h http.Handler) http.Handler {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	one := make(chan struct{}, 1)
	d.closers = append(d.closers, closerFunc(func() error { cancel(); wg.Wait(); return nil }))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPut {
			h.ServeHTTP(w, r)
			return
		}
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		_, key, _ := strings.Cut(r.URL.Path, "/_blob/")
		svc := d.Recognition
		if sw.status/100 != 2 || svc == nil || !strings.HasPrefix(key, recognition.UploadPrefix) {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { // outside any request's recover: a panic here would end the devserver
				if p := recover(); p != nil {
					d.Log.Error("preparing an upload panicked", slog.String("key", key), slog.Any("panic", p))
				}
			}()
			select {
			case one <- struct{}{}:
				defer func() { <-one }()
			case <-ctx.Done():
				return
			}
			attrs, err := d.Blob.Head(ctx, key)
			if err == nil {
				err = svc.Prepare(ctx, key, attrs.ETag)
			}
			if err != nil && ctx.Err() == nil {
				d.Log.Warn("preparing an upload", slog.String("key", key), slog.Any("error", err))
			}
		}()
	})
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}
