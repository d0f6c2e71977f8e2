package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

var (
	loadOnce sync.Once
	doc      *openapi3.T // loaded once; every LoadSpec call returns it
	router   routers.Router
	loadErr  error
)

// SpecPath finds infra/openapi.yaml from the module root.
func SpecPath() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "infra", "openapi.yaml"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

// LoadSpec loads and validates the OpenAPI document once per test binary.
func LoadSpec() (*openapi3.T, routers.Router, error) {
	loadOnce.Do(func() {
		path, err := SpecPath()
		if err != nil {
			loadErr = err
			return
		}
		doc, loadErr = openapi3.NewLoader().LoadFromFile(path)
		if loadErr != nil {
			return
		}
		if loadErr = doc.Validate(context.Background()); loadErr != nil {
			return
		}
		doc.Servers = nil // match any host: tests listen on random ports
		router, loadErr = gorillamux.NewRouter(doc)
	})
	return doc, router, loadErr
}

// Client sends requests to a test server and checks each response
// against the OpenAPI document.
type Client struct {
	t      testing.TB
	Server *httptest.Server
	HTTP   *http.Client
	// Token, when set, is sent as "Authorization: Bearer Token" unless the
	// request sets Authorization itself.
	Token string
}

// New starts h on a test server closed with the test.
func New(t testing.TB, h http.Handler) *Client {
	t.Helper()
	if _, _, err := LoadSpec(); err != nil {
		t.Fatalf("openapi: %v", err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &Client{t: t, Server: srv, HTTP: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// Response is a fully read response.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test on error.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Map decodes the body as a JSON object.
func (r *Response) Map(t testing.TB) map[string]any {
	var m map[string]any
	r.JSON(t, &m)
	return m
}

// Request is what a test sends.
type Request struct {
	Method string
	Path   string // with query
	Header map[string]string
	JSON   any    // marshalled as the body when non-nil
	Body   []byte // raw body when JSON is nil
}

// Do sends req and validates the response against the document.
func (c *Client) Do(req Request) *Response {
	c.t.Helper()
	var body io.Reader
	raw := req.Body
	if req.JSON != nil {
		b, err := json.Marshal(req.JSON)
		if err != nil {
			c.t.Fatal(err)
		}
		raw = b
	}
	if raw != nil {
		body = bytes.NewReader(raw)
	}
	hr, err := http.NewRequest(req.Method, c.Server.URL+req.Path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if req.JSON != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		hr.Header.Set("Authorization", "Bearer "+c.Token)
	}
	for k, v := range req.Header {
		if v == "" {
			hr.Header.Del(k)
		} else {
			hr.Header.Set(k, v)
		}
	}
	resp, err := c.HTTP.Do(hr)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.Path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	r := &Response{Status: resp.StatusCode, Header: resp.Header, Body: out}
	c.validate(hr, raw, r)
	return r
}

// validate checks the response against the operation's documented
// responses: the status must be documented and the body must match.
func (c *Client) validate(req *http.Request, reqBody []byte, r *Response) {
	c.t.Helper()
	if strings.HasPrefix(req.URL.Path, "/_blob/") {
		return // local signed storage URLs stand in for S3; not part of the API
	}
	route, params, err := router.FindRoute(req)
	if err != nil {
		if r.Status == http.StatusNotFound || r.Status == http.StatusMethodNotAllowed {
			return // an unknown path or method: nothing to validate against
		}
		c.t.Errorf("openapi: %s %s answered %d but is not documented: %v", req.Method, req.URL.Path, r.Status, err)
		return
	}
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}},
		Status:  r.Status,
		Header:  r.Header,
		Body:    io.NopCloser(bytes.NewReader(r.Body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		c.t.Errorf("openapi: %s %s → %d %s\n%v", req.Method, req.URL.Path, r.Status, truncate(r.Body), err)
	}
}

func truncate(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}
