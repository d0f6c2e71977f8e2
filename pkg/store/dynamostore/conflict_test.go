package dynamostore_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/dynamostore"
)

// conflicting is a DynamoDB stand-in that refuses the next `refusals`
// single-item writes with TransactionConflictException (a transaction is
// under way on the item, as DynamoDB answers a PutItem, UpdateItem or
// DeleteItem then; bbolt serializes writes and never does), then
// accepts them.
type conflicting struct {
	mu       sync.Mutex
	refusals int
	calls    map[string]int
}

func (c *conflicting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	c.mu.Lock()
	c.calls[op]++
	refuse := c.refusals > 0
	if refuse {
		c.refusals--
	}
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	if refuse {
		w.Header().Set("X-Amzn-ErrorType", "TransactionConflictException")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionConflictException","message":"Transaction is ongoing for the item"}`)
		return
	}
	if op == "UpdateItem" {
		_, _ = io.WriteString(w, `{"Attributes":{"PK":{"S":"p"},"SK":{"S":"s"},"n":{"N":"1"}}}`)
		return
	}
	_, _ = io.WriteString(w, `{}`)
}

// TestSingleWritesMeetingATransactionAreRetried: a Put, Update or Delete
// that DynamoDB refuses because a transaction is under way on its item
// wrote nothing; the adapter tries it again after a pause, as it does a
// transaction that met another, and answers store.ErrContention (nothing
// written, retry may succeed) when the refusals go on. Before, the
// refusal came back as an unknown error: a playlist change answered 500
// as a write that may have committed, an allowlist counter could not be
// started.
func TestSingleWritesMeetingATransactionAreRetried(t *testing.T) {
	k := store.Key{PK: "p", SK: "s"}
	writes := map[string]func(s *dynamostore.Store) error{
		"PutItem": func(s *dynamostore.Store) error {
			return s.Put(t.Context(), store.Playlists, store.Item{Key: k, Attrs: map[string]any{"n": 1}}, nil)
		},
		"UpdateItem": func(s *dynamostore.Store) error {
			_, err := s.Update(t.Context(), store.Quotas, k, store.Update{Add: map[string]int64{"n": 1}}, nil)
			return err
		},
		"DeleteItem": func(s *dynamostore.Store) error {
			return s.Delete(t.Context(), store.Accounts, k, nil)
		},
	}
	for op, write := range writes {
		t.Run(op, func(t *testing.T) {
			fake := &conflicting{refusals: 2, calls: map[string]int{}}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			s := dynamostore.New(dynamostore.LocalClient(srv.URL, ""), dynamostore.TableNames("t-"))
			if err := write(s); err != nil {
				t.Errorf("after 2 refusals: %v; want the write made", err)
			}
			if fake.calls[op] != 3 {
				t.Errorf("%d calls; want 3", fake.calls[op])
			}
			fake.mu.Lock()
			fake.refusals = 1 << 20
			fake.mu.Unlock()
			if err := write(s); !errors.Is(err, store.ErrContention) {
				t.Errorf("refused every time: %v; want store.ErrContention", err)
			}
		})
	}
}
