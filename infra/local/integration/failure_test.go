package integration

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"musiccatalog/infra/local/lambdastub"
)

// shortVideo renders a small test video (a tone over black frames).
func shortVideo(t testing.TB, seconds int, freq int) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "clip.mp4")
	out, err := exec.Command("ffmpeg", "-v", "error", "-y",
		"-f", "lavfi", "-i", "sine=frequency="+strconv.Itoa(freq)+":duration="+strconv.Itoa(seconds),
		"-f", "lavfi", "-i", "color=c=black:s=160x120:r=10:d="+strconv.Itoa(seconds),
		"-shortest", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "64k", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// activeJobs counts the jobs left queued or processing in the Jobs table.
func activeJobs(t testing.TB, s *stack) int {
	t.Helper()
	table := s.Table("JobsTable")
	out, err := s.DynamoDB().Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table.Name)})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range out.Items {
		if st, ok := it["status"].(*ddbtypes.AttributeValueMemberS); ok && (st.Value == "queued" || st.Value == "processing") {
			n++
		}
	}
	return n
}

// TestTaskCrashAndTimeoutFailTheJob: a task binary killed mid-run
// (Runtime.ExitError) and one that runs past its timeout (Sandbox.Timedout)
// end their jobs failed with the reason, through the state machine's
// Catch and recognition-finish's MarkFailed; both units of the daily cap
// come back (these are our failures, not the partner's) and no job is left
// in progress.
func TestTaskCrashAndTimeoutFailTheJob(t *testing.T) {
	s := newStack(t, nil, nil)
	capped := s.admin("clients", "create", "--name", "Capped Partner", "--plan", "enterprise", "--scopes", "compliance_check", "--recognition-daily-cap", "2")["key"]
	s.key = capped
	extract := s.Function("RecognitionExtractFunction")
	var mode atomic.Value // "crash" or "freeze"
	var hits atomic.Int32
	s.Runtime.OnInvoke = func(inv *lambdastub.Invocation) {
		if inv.Function != extract.Name {
			return
		}
		hits.Add(1)
		// The event has reached the handler: the task is running.
		switch mode.Load() {
		case "crash":
			inv.Process.Kill()
		case "freeze":
			inv.Process.Signal(syscall.SIGSTOP)
		}
	}
	c := lambdaClient{s: s, t: t}
	video := shortVideo(t, 90, 440) // long enough that extracting it takes a while

	for _, tc := range []struct {
		mode, code string
	}{
		{"crash", "internal_error"},
		{"freeze", "timeout"},
	} {
		mode.Store(tc.mode)
		if tc.mode == "freeze" {
			s.Runtime.SetTimeout(extract.Name, 3*time.Second)
		}
		key := uploadVideo(t, c, video, tc.mode+".mp4")
		status, created := submit(t, c, key)
		if status != http.StatusCreated {
			t.Fatalf("%s: submit %d %v", tc.mode, status, created)
		}
		job := pollJob(t, c, created["job_id"].(string))
		if job["status"] != "failed" || job["error_code"] != tc.code {
			t.Errorf("%s: job %v, want failed with error_code %s", tc.mode, job, tc.code)
		}
		if detail, _ := job["detail"].(string); detail == "" {
			t.Errorf("%s: failed job without a detail: %v", tc.mode, job)
		}
	}
	if hits.Load() < 2 {
		t.Errorf("the extract binary was invoked %d times", hits.Load())
	}
	if n := activeJobs(t, s); n != 0 {
		t.Errorf("%d jobs left queued or processing", n)
	}
	// Both failures gave their unit back: a cap of 2 still admits a job.
	mode.Store("")
	s.Runtime.SetTimeout(extract.Name, extract.Timeout)
	key := uploadVideo(t, c, video, "after.mp4")
	if status, body := submit(t, c, key); status != http.StatusCreated {
		t.Errorf("submit after two failed jobs under a cap of 2: %d %v (the units were not given back)", status, body)
	}
}
