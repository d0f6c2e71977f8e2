package memqueue

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestRedeliversAndDrains: a failing message is delivered again until it
// succeeds; Close delivers what is still queued; Send after Close fails.
func TestRedeliversAndDrains(t *testing.T) {
	var mu sync.Mutex
	got := map[string]int{}
	q := New(func(_ context.Context, body []byte) error {
		mu.Lock()
		defer mu.Unlock()
		got[string(body)]++
		if string(body) == "flaky" && got["flaky"] < 3 {
			return errors.New("not yet")
		}
		return nil
	}, nil, time.Millisecond)
	ctx := context.Background()
	for _, m := range []string{"flaky", "a", "b", "c"} {
		if err := q.Send(ctx, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	q.Close()
	if got["flaky"] != 3 || got["a"] != 1 || got["b"] != 1 || got["c"] != 1 {
		t.Errorf("deliveries %v", got)
	}
	if err := q.Send(ctx, []byte("late")); !errors.Is(err, ErrClosed) {
		t.Errorf("send after close: %v", err)
	}
}
