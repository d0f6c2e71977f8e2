// Command lambdastub runs template.yaml on the local stand-ins started by
// infra/local/with-stack.sh, for poking at the stack by hand:
//
//	bash infra/local/with-stack.sh go run ./infra/local/lambdastub/cmd/lambdastub \
//	    -bin DIR [-stack NAME] [-param AcrCloudHost=http://...]
//
// DIR holds <function>/bootstrap built for this machine
// (go build -tags lambda.norpc -o DIR/<fn>/bootstrap ./functions/<fn>).
// It prints the environment a client needs (AWS_ENDPOINT_URL_LAMBDA,
// _SFN, the table and bucket names) and serves until interrupted.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"musiccatalog/infra/local/lambdastub"
)

type params map[string]string

func (p params) String() string { return fmt.Sprint(map[string]string(p)) }

func (p params) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("want NAME=VALUE, got %q", v)
	}
	p[k] = val
	return nil
}

func main() {
	tpl := flag.String("template", "template.yaml", "the SAM template")
	bin := flag.String("bin", "", "directory of <function>/bootstrap binaries (required)")
	stack := flag.String("stack", "local", "stack name (lower case)")
	work := flag.String("work", "", "directory for logs and definitions (default: a temporary one)")
	ps := params{}
	flag.Var(ps, "param", "parameter override NAME=VALUE (repeatable)")
	flag.Parse()
	if *bin == "" {
		log.Fatal("lambdastub: -bin is required")
	}
	for _, k := range []string{"TEST_DYNAMODB_ENDPOINT", "TEST_S3_ENDPOINT", "TEST_SQS_ENDPOINT", "TEST_NODE", "TEST_NODE_TOOLS"} {
		if os.Getenv(k) == "" {
			log.Fatalf("lambdastub: %s is unset; run under infra/local/with-stack.sh", k)
		}
	}
	if *work == "" {
		dir, err := os.MkdirTemp("", "lambdastub-")
		if err != nil {
			log.Fatal(err)
		}
		*work = dir
	}
	opt := filepath.Join(*work, "opt")
	os.MkdirAll(filepath.Join(opt, "bin"), 0o755)
	for _, tool := range []string{"ffmpeg", "ffprobe", "yt-dlp"} {
		if p, err := exec.LookPath(tool); err == nil {
			os.Symlink(p, filepath.Join(opt, "bin", tool))
		}
	}
	here, _ := filepath.Abs(filepath.Dir(*tpl))
	st, err := lambdastub.New(lambdastub.Config{
		Template: *tpl, Params: ps,
		Names:            lambdastub.Names{Stack: *stack, Region: "us-east-1", Account: "000000000000"},
		DynamoDBEndpoint: os.Getenv("TEST_DYNAMODB_ENDPOINT"), S3Endpoint: os.Getenv("TEST_S3_ENDPOINT"), SQSEndpoint: os.Getenv("TEST_SQS_ENDPOINT"),
		AccessKey: os.Getenv("TEST_S3_ACCESS_KEY"), SecretKey: os.Getenv("TEST_S3_SECRET_KEY"),
		BinDir: *bin, OptDir: opt, WorkDir: *work,
		Node: os.Getenv("TEST_NODE"), NodeModules: os.Getenv("TEST_NODE_TOOLS"),
		SFNRunner: filepath.Join(here, "infra", "local", "sfn-run.cjs"),
		Log:       log.Printf,
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := st.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	st.StartEventSources()
	var env []string
	for _, kv := range st.Runtime.Environment(st.Functions[0], "") {
		if strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(kv, "AWS_LAMBDA_") || strings.HasPrefix(kv, "TABLE_") || strings.HasPrefix(kv, "BUCKET=") {
			env = append(env, kv)
		}
	}
	sort.Strings(env)
	for _, kv := range env {
		fmt.Println("export " + kv)
	}
	log.Printf("lambdastub: %d functions, %d state machines on %s; logs in %s", len(st.Functions), len(st.Machines), st.URL, filepath.Join(*work, "logs"))
	<-ctx.Done()
}
