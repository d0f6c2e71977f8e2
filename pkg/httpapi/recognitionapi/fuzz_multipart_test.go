package recognitionapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"musiccatalog/pkg/blob/fileblob"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/recognition"
)

// fuzzBoundary is the boundary of every fuzzed multipart body; the corpus
// files are written with it.
const fuzzBoundary = "fuzzboundary"

// tokenAuth knows one partner token, "good".
type tokenAuth struct{}

func (tokenAuth) Authenticate(_ context.Context, tok string) (identity.Principal, error) {
	if tok == "good" {
		return identity.Principal{Client: identity.Client{ID: "c1"}, Scopes: []string{identity.ScopeComplianceCheck}}, nil
	}
	return identity.Principal{}, identity.ErrInvalidToken
}

// acceptAll is a recognition service that takes every submit with a
// source, refusing one without as recognition.Service does.
type acceptAll struct{}

func (acceptAll) Submit(_ context.Context, p *identity.Principal, src recognition.SourceRef) (recognition.Job, error) {
	if src.Key == "" {
		return recognition.Job{}, errs.E("fuzz.Submit", errs.Invalid, msgExactlyOne)
	}
	return recognition.Job{ID: ids.NewUUID(), ClientID: p.Client.ID, Status: "queued", Source: src}, nil
}

func (acceptAll) Get(context.Context, string, string) (recognition.Job, error) {
	return recognition.Job{}, nil
}

func (acceptAll) Rejection(context.Context, string) (*recognition.JobError, error) { return nil, nil }

// FuzzRecognitionMultipart sends any multipart body to the recognition
// submit and checks the multipart reader's contract: never a 5xx (a body
// the client got wrong is a 400, issue 14 item 11), always a JSON answer
// of bounded size, and storage holds exactly the one upload of an accepted
// submit and nothing after a refused one. Seeds:
// testdata/fuzz/FuzzRecognitionMultipart (bodies with boundary fuzzboundary).
func FuzzRecognitionMultipart(f *testing.F) {
	bs, err := fileblob.New(f.TempDir(), "http://127.0.0.1:1", []byte("fuzz-signing-secret-0123"))
	if err != nil {
		f.Fatal(err)
	}
	base := &httpapi.API{Auth: tokenAuth{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Blob: bs}
	a := &API{API: base, Recognition: acceptAll{}}
	base.Mounts = map[httpapi.Group]httpapi.MountFunc{httpapi.GroupRecognition: a.Mount}
	h := base.Handler(httpapi.GroupRecognition)
	f.Fuzz(func(t *testing.T, body []byte) { // inputs run one after another in a process: one store, emptied after each
		r := httptest.NewRequest("POST", "/api/v4/video-recognition/", bytes.NewReader(body))
		r.Header.Set("Content-Type", "multipart/form-data; boundary="+fuzzBoundary)
		r.Header.Set("Authorization", "Bearer good")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code >= 500 {
			t.Fatalf("%d %s for %q", w.Code, w.Body, body)
		}
		if !json.Valid(w.Body.Bytes()) || w.Body.Len() > 2048 {
			t.Fatalf("%d answer %q", w.Code, w.Body)
		}
		objs, err := bs.List(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			if err := bs.Delete(context.Background(), o.Key); err != nil {
				t.Fatal(err)
			}
		}
		want := 0
		if w.Code == http.StatusCreated {
			want = 1
		}
		if len(objs) != want {
			t.Fatalf("%d answer left %d objects in storage, want %d: %q", w.Code, len(objs), want, body)
		}
	})
}
