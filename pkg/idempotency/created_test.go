package idempotency_test

import (
	"context"
	"testing"
	"time"

	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/ids"
)

// TestCreateIDAfterRetentionIsTheSameOnEveryRun: a key and body reused
// after Retention find the first record too old; every run of that
// request (a retry whose answer was lost) must name the same new record,
// and find it as prior once written. Before, each run got a fresh random
// id: two records for one request. Only when every candidate is taken is
// the id random.
func TestCreateIDAfterRetentionIsTheSameOnEveryRun(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	recs := map[string]idempotency.Earlier{}
	load := func(_ context.Context, id string) (string, idempotency.Earlier, bool, error) {
		e, ok := recs[id]
		return id, e, ok, nil
	}
	rid := ids.NewUUID()
	create := func() (string, *string) {
		t.Helper()
		id, prior, err := idempotency.CreateID(ctx, rid, "c1", now, ids.NewUUID, load)
		if err != nil {
			t.Fatal(err)
		}
		return id, prior
	}
	if id, prior := create(); id != rid || prior != nil {
		t.Fatalf("first: %s %v; want the RequestID, no prior", id, prior)
	}
	recs[rid] = idempotency.Earlier{Owner: "c1", Created: now.Add(-idempotency.Retention - time.Hour)}
	a, prior := create()
	if prior != nil || a == rid {
		t.Fatalf("after retention: %s %v; want a new id", a, prior)
	}
	if b, _ := create(); b != a {
		t.Fatalf("two runs after retention named %s and %s; want one id", a, b)
	}
	recs[a] = idempotency.Earlier{Owner: "c1", Created: now.Add(-time.Minute)}
	if b, prior := create(); b != a || prior == nil || *prior != a {
		t.Fatalf("run after the write: %s %v; want the written record %s as prior", b, prior, a)
	}
	// Another's record at a candidate is passed over the same way.
	recs[a] = idempotency.Earlier{Owner: "c2", Created: now}
	c, prior := create()
	if prior != nil || c == a || c == rid {
		t.Fatalf("past another's record: %s %v", c, prior)
	}
	if d, _ := create(); d != c {
		t.Fatalf("past another's record, two runs: %s %s", c, d)
	}
	// Every candidate taken: random ids, never a taken one.
	for n := 0; n < idempotency.MaxSuccessors; n++ {
		id, _ := create()
		recs[id] = idempotency.Earlier{Owner: "c2", Created: now}
	}
	e, _ := create()
	f, _ := create()
	if _, taken := recs[e]; taken || e == f {
		t.Fatalf("all candidates taken: %s %s; want fresh ids", e, f)
	}
}
