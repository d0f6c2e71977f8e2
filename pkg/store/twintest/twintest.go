package twintest

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"

	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/boltstore"
	"musiccatalog/pkg/store/dynamostore"
)

// Twin names one adapter and opens a fresh, empty store of it.
type Twin struct {
	Name string
	Open func(t testing.TB) store.Store
}

// Twins returns the bbolt twin and the DynamoDB adapter.
func Twins() []Twin {
	return []Twin{{"bolt", Bolt}, {"dynamodb", DynamoDB}}
}

// Run runs f once per twin as a subtest.
func Run(t *testing.T, f func(t *testing.T, st store.Store)) {
	for _, tw := range Twins() {
		t.Run(tw.Name, func(t *testing.T) { f(t, tw.Open(t)) })
	}
}

// Bolt opens a bbolt store in a temporary directory, closed with the test.
func Bolt(t testing.TB) store.Store {
	t.Helper()
	s, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// DynamoDB creates a fresh set of tables on DynamoDB Local and deletes
// them after the test; it skips (fails under CI=true) without an endpoint.
func DynamoDB(t testing.TB) store.Store {
	t.Helper()
	ep := os.Getenv("TEST_DYNAMODB_ENDPOINT")
	if ep == "" {
		const how = "TEST_DYNAMODB_ENDPOINT is not set; run the test under `bash infra/local/with-stack.sh`"
		if os.Getenv("CI") == "true" {
			t.Fatal(how)
		}
		t.Skip(how)
	}
	s := dynamostore.New(dynamostore.LocalClient(ep, ""), dynamostore.TableNames("twin-"+rand.Text()[:10]+"-"))
	if err := s.CreateTables(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.DeleteTables(context.Background()); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return s
}
