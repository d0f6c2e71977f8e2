package integration

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"musiccatalog/infra/local/lambdastub"
)

// Environment of the tier, as with-stack.sh exports it.
var tierEnv = []string{"TEST_DYNAMODB_ENDPOINT", "TEST_S3_ENDPOINT", "TEST_S3_ACCESS_KEY", "TEST_S3_SECRET_KEY", "TEST_SQS_ENDPOINT", "TEST_NODE", "TEST_NODE_TOOLS"}

// requireTier skips (fails under CI=true) when a stand-in is missing.
func requireTier(t testing.TB) {
	t.Helper()
	var missing []string
	for _, k := range tierEnv {
		if os.Getenv(k) == "" {
			missing = append(missing, k)
		}
	}
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		missing = append(missing, "ffmpeg on PATH")
	}
	if len(missing) == 0 {
		return
	}
	msg := fmt.Sprintf("the local AWS tier is not running (%s unset); run: bash infra/local/with-stack.sh go test ./infra/local/integration/", strings.Join(missing, ", "))
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// record appends a line to the timings file with-stack.sh prints at the
// end (go test hides a passing package's output).
func record(t testing.TB, format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	t.Log(line)
	if path := os.Getenv("TEST_TIMINGS_FILE"); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err == nil {
			fmt.Fprintln(f, line)
			f.Close()
		}
	}
}

var built struct {
	once sync.Once
	dir  string
	err  error
}

// TestMain removes the built binaries when the run ends: 19 static
// binaries are hundreds of MB, and a temporary directory per run left
// behind fills a shared disk.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// binaries builds every function under functions/ for this machine, as
// `make build` does for Lambda but for the host architecture, once per
// test run: <dir>/<function>/bootstrap.
func binaries(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		root := repoRoot(t)
		dirs, err := filepath.Glob(filepath.Join(root, "functions", "*"))
		if err != nil {
			built.err = err
			return
		}
		out, err := os.MkdirTemp("", "lambda-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = out // removed by TestMain, even when the build fails
		flat := filepath.Join(out, ".flat")
		// Stripped, as `make build` builds them for Lambda (a third of the size).
		args := []string{"build", "-tags", "lambda.norpc", "-trimpath", "-ldflags", "-s -w", "-o", flat + "/"}
		for _, d := range dirs {
			args = append(args, "./functions/"+filepath.Base(d))
		}
		t0 := time.Now()
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, b)
			return
		}
		for _, d := range dirs {
			fn := filepath.Base(d)
			if err := os.MkdirAll(filepath.Join(out, fn), 0o755); err != nil {
				built.err = err
				return
			}
			if err := os.Rename(filepath.Join(flat, fn), filepath.Join(out, fn, "bootstrap")); err != nil {
				built.err = err
				return
			}
		}
		record(t, "lambda binaries (%d, %s/%s) built in %.1f s", len(dirs), runtime.GOOS, runtime.GOARCH, time.Since(t0).Seconds())
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.dir
}

// optDir stands in for the ffmpeg layer: /opt/bin/ffmpeg and ffprobe are
// this machine's.
func optDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"ffmpeg", "ffprobe", "yt-dlp"} {
		if p, err := exec.LookPath(tool); err == nil {
			if err := os.Symlink(p, filepath.Join(dir, "bin", tool)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// stack is one deployment of template.yaml on the stand-ins.
type stack struct {
	*lambdastub.Stack
	t      testing.TB
	bucket string
	key    string // a partner key (enterprise) made by admin --aws
	env    []string
}

// newStack deploys the template under a fresh stack name; adjust may
// change functions and queues before it starts.
func newStack(t testing.TB, params map[string]string, adjust func(*lambdastub.Stack)) *stack {
	t.Helper()
	requireTier(t)
	root := repoRoot(t)
	var id [4]byte
	rand.Read(id[:])
	work := t.TempDir()
	// Parameters without a default: what an operator passes to sam deploy.
	all := map[string]string{"SiteUrl": "https://music.example.com"}
	for k, v := range params {
		all[k] = v
	}
	cfg := lambdastub.Config{
		Template: filepath.Join(root, "template.yaml"),
		Params:   all,
		Names:    lambdastub.Names{Stack: "it" + hex.EncodeToString(id[:]), Region: "us-east-1", Account: "000000000000"},

		DynamoDBEndpoint: os.Getenv("TEST_DYNAMODB_ENDPOINT"),
		S3Endpoint:       os.Getenv("TEST_S3_ENDPOINT"),
		SQSEndpoint:      os.Getenv("TEST_SQS_ENDPOINT"),
		AccessKey:        os.Getenv("TEST_S3_ACCESS_KEY"),
		SecretKey:        os.Getenv("TEST_S3_SECRET_KEY"),

		BinDir: binaries(t), OptDir: optDir(t), WorkDir: work,
		Node: os.Getenv("TEST_NODE"), NodeModules: os.Getenv("TEST_NODE_TOOLS"),
		SFNRunner: filepath.Join(root, "infra", "local", "sfn-run.cjs"),
		Log:       t.Logf,
	}
	st, err := lambdastub.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if adjust != nil {
		adjust(st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t0 := time.Now()
	if err := st.Start(ctx); err != nil {
		t.Fatal(err)
	}
	s := &stack{Stack: st, t: t}
	t.Cleanup(func() {
		st.Close()
		if t.Failed() {
			for _, f := range st.Functions {
				if logs := st.Logs(f); logs != "" {
					t.Logf("--- %s log (tail)\n%s", f.Name, tail(logs, 3000))
				}
			}
		}
	})
	if len(st.Buckets) != 1 {
		t.Fatalf("template buckets %v, want one", st.Buckets)
	}
	s.bucket = st.Buckets[0]
	api := st.Function("ApiRecognitionFunction")
	s.env = st.Runtime.Environment(api, "")
	s.key = s.admin("clients", "create", "--name", "Integration Partner", "--plan", "enterprise", "--scopes", "compliance_check", "--can-download", "--sfx")["key"]
	record(t, "%s: lambda stand-in up (tables, bucket, queues, %d functions, %d state machines validated) in %.1f s",
		t.Name(), len(st.Functions), len(st.Machines), time.Since(t0).Seconds())
	return s
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// admin runs the admin binary with --aws on the stack's tables and
// returns its "name value" output lines.
func (s *stack) admin(args ...string) map[string]string {
	s.t.Helper()
	cmd := exec.Command(filepath.Join(binaries(s.t), "admin", "bootstrap"), append([]string{"--aws"}, args...)...)
	cmd.Env = s.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		s.t.Fatalf("admin --aws %v: %v\n%s", args, err, stderr.String())
	}
	kv := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			kv[k] = v
		}
	}
	return kv
}

// apiResponse is an API function's answer.
type apiResponse struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r apiResponse) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("response %d %q: %v", r.Status, r.Body, err)
	}
	return m
}

// call sends an API Gateway HTTP API (payload 2.0) event to the function
// through the Invoke API, as API Gateway does, and decodes its answer.
func (s *stack) call(function, method, path, query string, headers map[string]string, body []byte) apiResponse {
	s.t.Helper()
	h := map[string]string{"authorization": "Bearer " + s.key, "host": "api.example.test", "user-agent": "integration"}
	for k, v := range headers {
		h[strings.ToLower(k)] = v
	}
	ev := events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: "$default", RawPath: path, RawQueryString: query, Headers: h,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			AccountID: "000000000000", APIID: "local", DomainName: "api.example.test", Stage: "$default",
			RequestID: fmt.Sprint(time.Now().UnixNano()),
			HTTP:      events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path, Protocol: "HTTP/1.1", SourceIP: "127.0.0.1", UserAgent: "integration"},
		},
	}
	if body != nil {
		ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString(body), true
	}
	raw, _ := json.Marshal(ev)
	fn := s.Function(function)
	if fn == nil {
		s.t.Fatalf("no function %s in the template", function)
	}
	payload, fnErr := s.invoke(fn.Name, raw)
	if fnErr != "" {
		s.t.Fatalf("%s %s: function error %s: %s", method, path, fnErr, payload)
	}
	var resp events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(payload, &resp); err != nil {
		s.t.Fatalf("%s %s: %v: %s", method, path, err, payload)
	}
	out := []byte(resp.Body)
	if resp.IsBase64Encoded {
		out, _ = base64.StdEncoding.DecodeString(resp.Body)
	}
	h2 := http.Header{}
	for k, v := range resp.Headers {
		h2.Set(k, v)
	}
	for k, vs := range resp.MultiValueHeaders {
		for _, v := range vs {
			h2.Add(k, v)
		}
	}
	return apiResponse{Status: resp.StatusCode, Header: h2, Body: out}
}

// invoke calls the Invoke API over HTTP, as aws-local-stepfunctions does.
func (s *stack) invoke(function string, payload []byte) ([]byte, string) {
	s.t.Helper()
	resp, err := http.Post(s.URL+"/2015-03-31/functions/"+function+"/invocations", "application/json", bytes.NewReader(payload))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("invoke %s: %d %s", function, resp.StatusCode, body)
	}
	return body, resp.Header.Get("X-Amz-Function-Error")
}
