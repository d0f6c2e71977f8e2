package sfnworkflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"musiccatalog/pkg/workflow"
	"musiccatalog/pkg/workflow/sfnworkflow"
)

// fakeSFN speaks enough of the Step Functions JSON protocol for
// StartExecution: it remembers names per state machine and answers a
// repeated name with ExecutionAlreadyExists, as the service does when the
// input differs (and with the existing execution when it is the same).
type fakeSFN struct {
	mu    sync.Mutex
	names map[string]string // arn/name -> input
	calls []map[string]string
}

func (f *fakeSFN) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Amz-Target") != "AWSStepFunctions.StartExecution" {
		http.Error(w, "unexpected target", http.StatusBadRequest)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var in map[string]string
	json.Unmarshal(body, &in)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, in)
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	key := in["stateMachineArn"] + "/" + in["name"]
	if prev, ok := f.names[key]; ok && prev != in["input"] {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"__type":"com.amazonaws.swf.service.v2.model#ExecutionAlreadyExists","message":"Execution Already Exists"}`)
		return
	}
	f.names[key] = in["input"]
	io.WriteString(w, `{"executionArn":"arn:aws:states:eu-west-1:1:execution:m:`+in["name"]+`","startDate":1700000000}`)
}

func newStarter(t *testing.T, f http.Handler) *sfnworkflow.Starter {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	client := sfn.New(sfn.Options{
		Region:       "eu-west-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		Retryer:      aws.NopRetryer{},
	})
	return sfnworkflow.New(client, map[string]string{"recognition": "arn:aws:states:eu-west-1:1:stateMachine:recognition"})
}

func TestStartSendsNameAndInput(t *testing.T) {
	f := &fakeSFN{names: map[string]string{}}
	s := newStarter(t, f)
	ctx := context.Background()
	if err := s.Start(ctx, "recognition", "job-1", map[string]string{"job_id": "job-1"}); err != nil {
		t.Fatal(err)
	}
	c := f.calls[0]
	if c["name"] != "job-1" || c["input"] != `{"job_id":"job-1"}` || c["stateMachineArn"] != "arn:aws:states:eu-west-1:1:stateMachine:recognition" {
		t.Errorf("request = %v", c)
	}
	// Same name again (even with another input): already started is success.
	if err := s.Start(ctx, "recognition", "job-1", map[string]string{"job_id": "other"}); err != nil {
		t.Errorf("repeated start: %v", err)
	}
	// Launch (what Restart uses) tells the taken name apart.
	if err := s.Launch(ctx, "recognition", "job-1", nil); !errors.Is(err, workflow.ErrAlreadyStarted) {
		t.Errorf("repeated launch: %v; want ErrAlreadyStarted", err)
	}
	if err := s.Launch(ctx, "recognition", "job-2", nil); err != nil {
		t.Errorf("new launch: %v", err)
	}
	if err := s.Start(ctx, "render", "x", nil); !errors.Is(err, workflow.ErrUnknownMachine) {
		t.Errorf("unknown machine: %v", err)
	}
}

func TestOtherErrorsAreReported(t *testing.T) {
	s := newStarter(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"__type":"StateMachineDoesNotExist","message":"no such machine"}`)
	}))
	if err := s.Start(context.Background(), "recognition", "job-2", nil); err == nil {
		t.Fatal("Start succeeded against a missing state machine")
	}
}
