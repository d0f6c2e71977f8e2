package lambdastub

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Lambda's limits the stand-in enforces (Lambda quotas page).
const (
	// maxSyncPayload is the largest request or response of a synchronous
	// invocation.
	maxSyncPayload = 6 << 20
	// mbPerVCPU is the memory at which a function gets one full vCPU.
	mbPerVCPU = 1769
	// initTimeout bounds the init phase of an on-demand instance.
	initTimeout = 10 * time.Second
	runtimePath = "/2018-06-01/runtime/"
)

// Errors of an invocation that never reached the function's code.
var (
	ErrNoFunction       = errors.New("ResourceNotFoundException")
	ErrTooManyRequests  = errors.New("TooManyRequestsException")
	ErrRequestTooLarge  = errors.New("RequestTooLargeException")
	errInstanceFinished = errors.New("instance finished")
)

// Result is what an invocation returns: the payload, and for a function
// error the X-Amz-Function-Error value ("Unhandled") with the error
// document {errorType, errorMessage} as payload.
type Result struct {
	Payload       []byte
	FunctionError string
}

// ErrorDoc is Lambda's error document.
type ErrorDoc struct {
	ErrorMessage string   `json:"errorMessage"`
	ErrorType    string   `json:"errorType"`
	StackTrace   []string `json:"stackTrace,omitempty"`
}

// Invocation is one request as an instance's code receives it; OnInvoke
// hooks see it with the process that runs it.
type Invocation struct {
	Function  string
	RequestID string
	Payload   []byte
	Process   *os.Process

	deadline time.Time
	done     chan Result
}

// Runtime runs function instances: one process per instance, one
// invocation at a time per instance, instances kept warm and reused.
type Runtime struct {
	// BinDir holds <Dir>/bootstrap for every function.
	BinDir string
	// OptDir stands in for /opt (layers): environment values under /opt/
	// are rewritten to it.
	OptDir string
	// Env is added to every instance's environment (endpoints, region,
	// credentials), before the function's own variables.
	Env map[string]string
	// LogDir receives each function's output (<name>.log).
	LogDir string
	// OnInvoke, when set, is called once the invocation reached the
	// function's code (its /next returned). Tests use it to crash or
	// freeze an instance mid-run.
	OnInvoke func(*Invocation)

	mu        sync.Mutex
	functions map[string]*fnState
}

type fnState struct {
	fn      *Function
	idle    []*instance
	running int
	log     *os.File
}

type instance struct {
	fs      *fnState
	cmd     *exec.Cmd
	srv     *http.Server
	next    chan *Invocation
	exited  chan struct{}
	exitErr error

	mu      sync.Mutex
	current *Invocation
	initErr *ErrorDoc
}

// AddFunction registers f; its binary must exist.
func (r *Runtime) AddFunction(f *Function) error {
	bin := filepath.Join(r.BinDir, f.Dir, "bootstrap")
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("%s: %w (build it for the host: go build -tags lambda.norpc -o %s ./functions/%s)", f.LogicalID, err, bin, f.Dir)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.functions == nil {
		r.functions = map[string]*fnState{}
	}
	st := &fnState{fn: f}
	if r.LogDir != "" {
		lf, err := os.OpenFile(filepath.Join(r.LogDir, f.Name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		st.log = lf
	}
	r.functions[f.Name] = st
	return nil
}

// Function finds a function by name, ARN or logical id.
func (r *Runtime) Function(name string) *Function {
	r.mu.Lock()
	defer r.mu.Unlock()
	if st := r.lookup(name); st != nil {
		return st.fn
	}
	return nil
}

func (r *Runtime) lookup(name string) *fnState {
	if i := strings.LastIndex(name, ":function:"); i >= 0 {
		name = name[i+len(":function:"):]
		name, _, _ = strings.Cut(name, ":") // a qualifier
	}
	if st, ok := r.functions[name]; ok {
		return st
	}
	for _, st := range r.functions {
		if st.fn.LogicalID == name {
			return st
		}
	}
	return nil
}

// SetTimeout changes a function's timeout, as UpdateFunctionConfiguration
// would (tests shorten it).
func (r *Runtime) SetTimeout(name string, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if st := r.lookup(name); st != nil {
		st.fn.Timeout = d
	}
}

// Invoke runs one synchronous invocation of the named function.
func (r *Runtime) Invoke(ctx context.Context, name string, payload []byte) (Result, error) {
	if len(payload) > maxSyncPayload {
		return Result{}, ErrRequestTooLarge
	}
	inst, err := r.acquire(name)
	if err != nil {
		return Result{}, err
	}
	fn := inst.fs.fn
	inv := &Invocation{Function: fn.Name, RequestID: newRequestID(), Payload: payload,
		deadline: time.Now().Add(fn.Timeout), done: make(chan Result, 1)}
	timer := time.NewTimer(fn.Timeout)
	defer timer.Stop()
	// First hand inv to the runtime's /next, then wait for its answer; the
	// instance exiting, the timeout and ctx end either wait alike. (inv.done
	// cannot fire before the hand-over: only the runtime holds inv.)
	next := inst.next
	for {
		select {
		case next <- inv:
			next = nil // handed over: a nil channel never sends again
		case res := <-inv.done:
			if len(res.Payload) > maxSyncPayload && res.FunctionError == "" {
				res = errorResult(inv, "Function.ResponseSizeTooLarge", fmt.Sprintf("Response payload size (%d bytes) exceeded maximum allowed payload size (%d bytes).", len(res.Payload), maxSyncPayload))
			}
			r.release(inst, true)
			return res, nil
		case <-inst.exited:
			r.release(inst, false)
			return errorResult(inv, "Runtime.ExitError", "Runtime exited with error: "+inst.exitText()), nil
		case <-timer.C:
			inst.kill()
			r.release(inst, false)
			return timedOut(inv, fn.Timeout), nil
		case <-ctx.Done():
			inst.kill()
			r.release(inst, false)
			return Result{}, ctx.Err()
		}
	}
}

func newRequestID() string {
	var b [16]byte
	rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// errorResult is Lambda's answer when the runtime, not the code, failed:
// "RequestId: <id> Error: <text>".
func errorResult(inv *Invocation, typ, text string) Result {
	doc, _ := json.Marshal(ErrorDoc{ErrorType: typ, ErrorMessage: "RequestId: " + inv.RequestID + " Error: " + text})
	return Result{Payload: doc, FunctionError: "Unhandled"}
}

func timedOut(inv *Invocation, d time.Duration) Result {
	return errorResult(inv, "Sandbox.Timedout", fmt.Sprintf("Task timed out after %.2f seconds", d.Seconds()))
}

// acquire takes an idle instance or starts one, within the function's
// reserved concurrency.
func (r *Runtime) acquire(name string) (*instance, error) {
	r.mu.Lock()
	st := r.lookup(name)
	if st == nil {
		r.mu.Unlock()
		return nil, fmt.Errorf("%w: Function not found: %s", ErrNoFunction, name)
	}
	if n := len(st.idle); n > 0 {
		inst := st.idle[n-1]
		st.idle = st.idle[:n-1]
		st.running++
		r.mu.Unlock()
		return inst, nil
	}
	if st.fn.ReservedConcurrency > 0 && st.running >= st.fn.ReservedConcurrency {
		r.mu.Unlock()
		return nil, fmt.Errorf("%w: Rate Exceeded. (reserved concurrency %d of %s)", ErrTooManyRequests, st.fn.ReservedConcurrency, st.fn.Name)
	}
	st.running++
	r.mu.Unlock()
	inst, err := r.start(st)
	if err != nil {
		r.mu.Lock()
		st.running--
		r.mu.Unlock()
		return nil, err
	}
	return inst, nil
}

// release returns a healthy instance to the pool and discards a broken one.
func (r *Runtime) release(inst *instance, healthy bool) {
	r.mu.Lock()
	inst.fs.running--
	select {
	case <-inst.exited:
		healthy = false
	default:
	}
	if healthy {
		inst.fs.idle = append(inst.fs.idle, inst)
	}
	r.mu.Unlock()
	if !healthy {
		inst.kill()
		inst.srv.Close()
	}
}

// Environment is what an instance of f sees: Lambda's reserved variables,
// the stand-ins' endpoints, then the function's own variables with /opt
// paths pointing at OptDir.
func (r *Runtime) Environment(f *Function, runtimeAPI string) []string {
	env := map[string]string{
		"PATH":                            os.Getenv("PATH"),
		"LANG":                            "en_US.UTF-8",
		"TZ":                              ":UTC",
		"HOME":                            os.TempDir(),
		"_HANDLER":                        "bootstrap",
		"LAMBDA_TASK_ROOT":                filepath.Join(r.BinDir, f.Dir),
		"AWS_EXECUTION_ENV":               "AWS_Lambda_provided.al2023",
		"AWS_LAMBDA_FUNCTION_NAME":        f.Name,
		"AWS_LAMBDA_FUNCTION_VERSION":     "$LATEST",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": strconv.Itoa(f.MemoryMB),
		"AWS_LAMBDA_LOG_GROUP_NAME":       "/aws/lambda/" + f.Name,
		"AWS_LAMBDA_RUNTIME_API":          runtimeAPI,
		"GOMAXPROCS":                      strconv.Itoa(VCPUs(f.MemoryMB)),
	}
	for k, v := range r.Env {
		env[k] = v
	}
	for k, v := range f.Env {
		if rest, ok := strings.CutPrefix(v, "/opt/"); ok && r.OptDir != "" {
			v = filepath.Join(r.OptDir, rest)
		}
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// VCPUs is the number of CPUs a function of memoryMB can keep busy: Lambda
// gives one vCPU per 1,769 MB (a share of a second one above that), capped
// by this machine's CPUs. It becomes the instance's GOMAXPROCS.
func VCPUs(memoryMB int) int {
	n := int(math.Ceil(float64(memoryMB) / mbPerVCPU))
	return max(1, min(n, runtime.NumCPU()))
}

// start launches an instance and waits until its code asks for work.
func (r *Runtime) start(st *fnState) (*instance, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	inst := &instance{fs: st, next: make(chan *Invocation), exited: make(chan struct{})}
	ready := make(chan struct{}, 1)
	inst.srv = &http.Server{Handler: inst.runtimeAPI(r, ready), ReadHeaderTimeout: 10 * time.Second}
	go inst.srv.Serve(ln)

	cmd := exec.Command(filepath.Join(r.BinDir, st.fn.Dir, "bootstrap"))
	cmd.Dir = filepath.Join(r.BinDir, st.fn.Dir)
	cmd.Env = r.Environment(st.fn, ln.Addr().String())
	if st.log != nil {
		cmd.Stdout, cmd.Stderr = st.log, st.log
	}
	if err := cmd.Start(); err != nil {
		inst.srv.Close()
		return nil, fmt.Errorf("%s: start: %w", st.fn.Name, err)
	}
	inst.cmd = cmd
	go func() {
		inst.exitErr = cmd.Wait()
		close(inst.exited)
	}()
	timer := time.NewTimer(initTimeout)
	defer timer.Stop()
	select {
	case <-ready:
		return inst, nil
	case <-inst.exited:
		inst.srv.Close()
		if doc := inst.initError(); doc != nil {
			return nil, fmt.Errorf("%s: init failed: %s: %s", st.fn.Name, doc.ErrorType, doc.ErrorMessage)
		}
		return nil, fmt.Errorf("%s: Runtime.ExitError during init: %s", st.fn.Name, inst.exitText())
	case <-timer.C:
		inst.kill()
		inst.srv.Close()
		return nil, fmt.Errorf("%s: init did not finish within %s", st.fn.Name, initTimeout)
	}
}

func (inst *instance) initError() *ErrorDoc {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	return inst.initErr
}

func (inst *instance) exitText() string {
	<-inst.exited
	if inst.exitErr == nil {
		return "exit status 0"
	}
	return strings.TrimPrefix(inst.exitErr.Error(), "exec: ")
}

func (inst *instance) kill() {
	if inst.cmd != nil && inst.cmd.Process != nil {
		inst.cmd.Process.Kill()
	}
}

// runtimeAPI serves the Lambda Runtime API to one instance.
func (inst *instance) runtimeAPI(r *Runtime, ready chan<- struct{}) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+runtimePath+"invocation/next", func(w http.ResponseWriter, req *http.Request) {
		select {
		case ready <- struct{}{}:
		default:
		}
		var inv *Invocation
		select {
		case inv = <-inst.next:
		case <-req.Context().Done():
			return
		case <-inst.exited:
			return
		}
		inst.mu.Lock()
		inst.current = inv
		inst.mu.Unlock()
		h := w.Header()
		h.Set("Lambda-Runtime-Aws-Request-Id", inv.RequestID)
		h.Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(inv.deadline.UnixMilli(), 10))
		h.Set("Lambda-Runtime-Invoked-Function-Arn", inst.fs.fn.ARN)
		h.Set("Lambda-Runtime-Trace-Id", "Root=1-"+strconv.FormatInt(time.Now().Unix(), 16)+"-"+strings.ReplaceAll(inv.RequestID, "-", "")[:24]+";Sampled=0")
		h.Set("Content-Type", "application/json")
		w.Write(inv.Payload)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		if r.OnInvoke != nil {
			inv.Process = inst.cmd.Process
			go r.OnInvoke(inv)
		}
	})
	finish := func(w http.ResponseWriter, req *http.Request, fnErr bool) {
		body, err := io.ReadAll(io.LimitReader(req.Body, maxSyncPayload+1))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		inst.mu.Lock()
		inv := inst.current
		if inv != nil && inv.RequestID == req.PathValue("id") {
			inst.current = nil
		} else {
			inv = nil
		}
		inst.mu.Unlock()
		if inv == nil {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"errorMessage":"unknown request id","errorType":"InvalidRequestID"}`))
			return
		}
		res := Result{Payload: body}
		if fnErr {
			res.FunctionError = "Unhandled"
			if !json.Valid(body) {
				res.Payload, _ = json.Marshal(ErrorDoc{ErrorType: req.Header.Get("Lambda-Runtime-Function-Error-Type"), ErrorMessage: string(body)})
			}
		}
		inv.done <- res
		w.WriteHeader(http.StatusAccepted)
		w.Write([]byte(`{"status":"OK"}`))
	}
	mux.HandleFunc("POST "+runtimePath+"invocation/{id}/response", func(w http.ResponseWriter, req *http.Request) { finish(w, req, false) })
	mux.HandleFunc("POST "+runtimePath+"invocation/{id}/error", func(w http.ResponseWriter, req *http.Request) { finish(w, req, true) })
	mux.HandleFunc("POST "+runtimePath+"init/error", func(w http.ResponseWriter, req *http.Request) {
		var doc ErrorDoc
		body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
		if json.Unmarshal(body, &doc) != nil {
			doc = ErrorDoc{ErrorType: "Runtime.InitError", ErrorMessage: string(bytes.TrimSpace(body))}
		}
		inst.mu.Lock()
		inst.initErr = &doc
		inst.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
		w.Write([]byte(`{"status":"OK"}`))
		go func() { time.Sleep(100 * time.Millisecond); inst.kill() }()
	})
	return mux
}

// Close stops every instance.
func (r *Runtime) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, st := range r.functions {
		for _, inst := range st.idle {
			inst.kill()
			inst.srv.Close()
			<-inst.exited
		}
		st.idle = nil
		if st.log != nil {
			st.log.Close()
		}
	}
}
