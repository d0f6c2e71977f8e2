package recognitionapi

import (
	"encoding/json"
	"strings"
	"testing"

	"musiccatalog/pkg/recognition"
)

// TestSubmitResponseRepeatsACompletedJobsTrack: a new job's 201 has track
// null (§2.4); a retry given its first run's job, completed meanwhile,
// answers that job's track, as its poll does (before: null, contradicting
// the completed status).
func TestSubmitResponseRepeatsACompletedJobsTrack(t *testing.T) {
	title := "Song"
	track := &recognition.Segment{Identified: true, Title: &title}
	body := func(job recognition.Job) string {
		t.Helper()
		b, err := json.Marshal(submitted(job))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := body(recognition.Job{ID: "j", Status: recognition.StatusQueued}); got != `{"job_id":"j","status":"queued","track":null}` {
		t.Errorf("new job: %s", got)
	}
	got := body(recognition.Job{ID: "j", Status: recognition.StatusCompleted, Track: track})
	if !strings.HasPrefix(got, `{"job_id":"j","status":"completed","track":{"identified":true,`) || !strings.Contains(got, `"title":"Song"`) {
		t.Errorf("completed job: %s", got)
	}
	if got := body(recognition.Job{ID: "j", Status: recognition.StatusCompleted}); !strings.HasSuffix(got, `"track":null}`) {
		t.Errorf("completed, no music: %s", got)
	}
}
