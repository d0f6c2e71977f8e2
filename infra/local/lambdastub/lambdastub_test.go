package lambdastub

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
)

// The test binary doubles as a function: with STUB_TEST_FUNCTION set, it
// serves the Runtime API like a real bootstrap.
func TestMain(m *testing.M) {
	if os.Getenv("STUB_TEST_FUNCTION") != "" {
		lambda.Start(func(ctx context.Context, in struct {
			Mode  string
			Sleep time.Duration
		}) (map[string]string, error) {
			switch in.Mode {
			case "fail":
				return nil, &inputError{"bad input"}
			case "crash":
				os.Exit(3)
			case "sleep":
				time.Sleep(in.Sleep)
			}
			return map[string]string{"gomaxprocs": os.Getenv("GOMAXPROCS"), "table": os.Getenv("TABLE"), "ffmpeg": os.Getenv("FFMPEG_PATH"),
				"memory": os.Getenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")}, nil
		})
		return
	}
	os.Exit(m.Run())
}

type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

const testTemplate = `
Parameters:
  Host: {Type: String, Default: ""}
Conditions:
  HasHost: !Not [!Equals [!Ref Host, ""]]
Globals:
  Function:
    MemorySize: 512
    Timeout: 29
    Environment:
      Variables:
        TABLE: !Ref JobsTable
        FFMPEG_PATH: /opt/bin/ffmpeg
Resources:
  EchoFunction:
    Type: AWS::Serverless::Function
    Properties:
      MemorySize: 3008
      ReservedConcurrentExecutions: 1
      Environment:
        Variables:
          HOST: !If [HasHost, !Ref Host, "none"]
          MACHINE: !Ref Machine
      Events:
        Uploads:
          Type: SQS
          Properties:
            Queue: !GetAtt Uploads.Arn
            BatchSize: 1
            FunctionResponseTypes: [ReportBatchItemFailures]
  Uploads:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: 1800
      RedrivePolicy: {deadLetterTargetArn: !GetAtt UploadsDLQ.Arn, maxReceiveCount: 3}
  UploadsDLQ:
    Type: AWS::SQS::Queue
  JobsTable:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions: [{AttributeName: PK, AttributeType: S}, {AttributeName: SK, AttributeType: S}]
      KeySchema: [{AttributeName: PK, KeyType: HASH}, {AttributeName: SK, KeyType: RANGE}]
  Media:
    Type: AWS::S3::Bucket
    Properties:
      BucketName: !Sub "${AWS::StackName}-media-${AWS::AccountId}"
      NotificationConfiguration:
        QueueConfigurations:
          - Event: s3:ObjectCreated:*
            Queue: !GetAtt Uploads.Arn
            Filter: {S3Key: {Rules: [{Name: prefix, Value: uploads/}]}}
  Machine:
    Type: AWS::Serverless::StateMachine
    Properties:
      DefinitionUri: machine.asl.json
      DefinitionSubstitutions:
        EchoArn: !GetAtt EchoFunction.Arn
`

func loadTestTemplate(t *testing.T, params map[string]string) *Template {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "template.yaml"), []byte(testTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	def := `{"StartAt":"Echo","States":{"Echo":{"Type":"Task","Resource":"${EchoArn}","End":true}}}`
	if err := os.WriteFile(filepath.Join(dir, "machine.asl.json"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	tpl, err := LoadTemplate(filepath.Join(dir, "template.yaml"), Names{Stack: "st", Region: "eu-west-1", Account: "123456789012", SQSEndpoint: "http://sqs"}, params)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func TestTemplateAsCloudFormationReadsIt(t *testing.T) {
	tpl := loadTestTemplate(t, map[string]string{"Host": "http://outside"})
	fns, err := tpl.Functions()
	if err != nil || len(fns) != 1 {
		t.Fatalf("functions %v %v", fns, err)
	}
	f := fns[0]
	if f.Dir != "echo" || f.MemoryMB != 3008 || f.Timeout != 29*time.Second || f.ReservedConcurrency != 1 {
		t.Errorf("function %+v", f)
	}
	want := map[string]string{"TABLE": "st-JobsTable", "FFMPEG_PATH": "/opt/bin/ffmpeg", "HOST": "http://outside",
		"MACHINE": "arn:aws:states:eu-west-1:123456789012:stateMachine:st-Machine"}
	for k, v := range want {
		if f.Env[k] != v {
			t.Errorf("env %s = %q, want %q", k, f.Env[k], v)
		}
	}
	if len(f.SQS) != 1 || f.SQS[0].QueueLogicalID != "Uploads" || f.SQS[0].BatchSize != 1 || !f.SQS[0].ReportItemFailures {
		t.Errorf("sqs sources %+v", f.SQS)
	}
	qs, err := tpl.Queues()
	if err != nil || len(qs) != 2 {
		t.Fatalf("queues %v %v", qs, err)
	}
	for _, q := range qs {
		if q.LogicalID == "Uploads" && (q.DLQ != "UploadsDLQ" || q.MaxReceiveCount != 3 || q.Visibility != 1800*time.Second) {
			t.Errorf("queue %+v", q)
		}
	}
	notes, err := tpl.BucketNotifications()
	if err != nil || len(notes) != 1 || notes[0].Bucket != "st-media-123456789012" || notes[0].Queue != "Uploads" || notes[0].Prefix != "uploads/" {
		t.Errorf("notifications %+v %v", notes, err)
	}
	sms, err := tpl.StateMachines()
	if err != nil || len(sms) != 1 || !strings.Contains(string(sms[0].Definition), `"Resource":"arn:aws:lambda:eu-west-1:123456789012:function:st-EchoFunction"`) {
		t.Errorf("state machines %v %v", sms, err)
	}
	// Without the parameter the condition takes the other branch.
	fns, _ = loadTestTemplate(t, nil).Functions()
	if fns[0].Env["HOST"] != "none" {
		t.Errorf("HOST without the parameter: %q", fns[0].Env["HOST"])
	}
	if _, err := LoadTemplate(filepath.Join(t.TempDir(), "x"), Names{Stack: "Upper"}, nil); err == nil {
		t.Error("a missing template loaded")
	}
}

func testRuntime(t *testing.T) (*Runtime, *Function) {
	t.Helper()
	fns, err := loadTestTemplate(t, nil).Functions()
	if err != nil {
		t.Fatal(err)
	}
	f := fns[0]
	bin := t.TempDir()
	if err := os.MkdirAll(filepath.Join(bin, f.Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	if err := os.Symlink(self, filepath.Join(bin, f.Dir, "bootstrap")); err != nil {
		t.Fatal(err)
	}
	rt := &Runtime{BinDir: bin, OptDir: "/layers", Env: map[string]string{"STUB_TEST_FUNCTION": "1"}}
	if err := rt.AddFunction(f); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	return rt, f
}

func TestRuntimeRunsABootstrapAsLambdaDoes(t *testing.T) {
	rt, f := testRuntime(t)
	ctx := context.Background()
	res, err := rt.Invoke(ctx, f.ARN, []byte(`{}`))
	if err != nil || res.FunctionError != "" {
		t.Fatalf("invoke: %s %v", res.Payload, err)
	}
	var env map[string]string
	json.Unmarshal(res.Payload, &env)
	if env["gomaxprocs"] != strconv.Itoa(VCPUs(3008)) || env["table"] != "st-JobsTable" || env["ffmpeg"] != "/layers/bin/ffmpeg" || env["memory"] != "3008" {
		t.Errorf("the function saw %v", env)
	}

	res, _ = rt.Invoke(ctx, f.Name, []byte(`{"Mode":"fail"}`))
	var doc ErrorDoc
	json.Unmarshal(res.Payload, &doc)
	if res.FunctionError != "Unhandled" || doc.ErrorType != "inputError" || doc.ErrorMessage != "bad input" {
		t.Errorf("function error: %q %s", res.FunctionError, res.Payload)
	}

	res, _ = rt.Invoke(ctx, f.Name, []byte(`{"Mode":"crash"}`))
	json.Unmarshal(res.Payload, &doc)
	if res.FunctionError != "Unhandled" || doc.ErrorType != "Runtime.ExitError" || !strings.Contains(doc.ErrorMessage, "exit status 3") {
		t.Errorf("crash: %q %s", res.FunctionError, res.Payload)
	}

	rt.SetTimeout(f.Name, 500*time.Millisecond)
	res, _ = rt.Invoke(ctx, f.Name, []byte(`{"Mode":"sleep","Sleep":5000000000}`))
	json.Unmarshal(res.Payload, &doc)
	if doc.ErrorType != "Sandbox.Timedout" || !strings.Contains(doc.ErrorMessage, "Task timed out after 0.50 seconds") {
		t.Errorf("timeout: %s", res.Payload)
	}

	// Reserved concurrency 1: a second concurrent invocation is throttled.
	rt.SetTimeout(f.Name, 10*time.Second)
	var wg sync.WaitGroup
	wg.Add(1)
	started := make(chan struct{})
	rt.OnInvoke = func(*Invocation) { close(started) }
	go func() {
		defer wg.Done()
		rt.Invoke(ctx, f.Name, []byte(`{"Mode":"sleep","Sleep":1000000000}`))
	}()
	<-started
	if _, err := rt.Invoke(ctx, f.Name, []byte(`{}`)); !errors.Is(err, ErrTooManyRequests) {
		t.Errorf("over the reserved concurrency: %v", err)
	}
	wg.Wait()
	if _, err := rt.Invoke(ctx, "nope", nil); !errors.Is(err, ErrNoFunction) {
		t.Errorf("unknown function: %v", err)
	}
}

func TestNotificationKeyEncodesAsS3(t *testing.T) {
	if got := NotificationKey("video-recognition/c1/Holiday Vlog(2).mp4"); got != "video-recognition/c1/Holiday+Vlog%282%29.mp4" {
		t.Errorf("got %s", got)
	}
}

// The project's own template must stay readable by the stand-in: every
// function has its directory, every state machine its substitutions.
func TestProjectTemplateLoads(t *testing.T) {
	tpl, err := LoadTemplate(filepath.Join("..", "..", "..", "template.yaml"), Names{Stack: "check", Region: "us-east-1", Account: "000000000000", SQSEndpoint: "http://sqs"},
		map[string]string{"SiteUrl": "https://music.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	fns, err := tpl.Functions()
	if err != nil || len(fns) == 0 {
		t.Fatalf("functions: %v", err)
	}
	for _, f := range fns {
		if _, err := os.Stat(filepath.Join("..", "..", "..", "functions", f.Dir, "main.go")); err != nil {
			t.Errorf("%s: no functions/%s: %v", f.LogicalID, f.Dir, err)
		}
	}
	if _, err := tpl.Queues(); err != nil {
		t.Error(err)
	}
	if _, err := tpl.Tables(); err != nil {
		t.Error(err)
	}
	if _, err := tpl.BucketNotifications(); err != nil {
		t.Error(err)
	}
	sms, err := tpl.StateMachines()
	if err != nil || len(sms) == 0 {
		t.Errorf("state machines %d: %v", len(sms), err)
	}
}
