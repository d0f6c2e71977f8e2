package dynamostore_test

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/dynamostore"
	"musiccatalog/pkg/store/storetest"
)

// endpoint returns the DynamoDB Local endpoint of the integration tier.
func endpoint(t *testing.T) string {
	t.Helper()
	ep := os.Getenv("TEST_DYNAMODB_ENDPOINT")
	if ep != "" {
		return ep
	}
	const how = "TEST_DYNAMODB_ENDPOINT is not set; run `bash infra/local/dynamodb.sh start && . infra/local/.run/dynamodb.env`"
	if os.Getenv("CI") == "true" {
		t.Fatal(how)
	}
	t.Skip(how)
	return ""
}

// tables creates a fresh set of tables for this test and deletes them
// afterwards.
func tables(t *testing.T, opts ...dynamostore.Option) (*dynamostore.Store, *dynamodb.Client, map[store.Table]string) {
	t.Helper()
	client := dynamostore.LocalClient(endpoint(t), "")
	names := dynamostore.TableNames("storetest-" + rand.Text()[:10] + "-")
	s := dynamostore.New(client, names, opts...)
	if err := s.CreateTables(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// t.Context is already cancelled when cleanups run.
		if err := s.DeleteTables(context.Background()); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return s, client, names
}

func TestConformance(t *testing.T) {
	s, _, _ := tables(t)
	storetest.Run(t, func(*testing.T) store.Store { return s })
}

func TestCreateTables(t *testing.T) {
	s, client, names := tables(t)
	if err := s.CreateTables(t.Context()); err != nil {
		t.Fatalf("CreateTables over existing tables: %v", err)
	}
	for _, tbl := range store.AllTables {
		desc, err := client.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: new(names[tbl])})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, g := range desc.Table.GlobalSecondaryIndexes {
			got = append(got, *g.IndexName)
			if g.Projection.ProjectionType != types.ProjectionTypeAll {
				t.Errorf("%s index %s projects %s", tbl, *g.IndexName, g.Projection.ProjectionType)
			}
		}
		if len(got) != len(store.Indexes[tbl]) {
			t.Errorf("%s has indexes %v, want %v", tbl, got, store.Indexes[tbl])
		}
		ttl, err := client.DescribeTimeToLive(t.Context(), &dynamodb.DescribeTimeToLiveInput{TableName: new(names[tbl])})
		if err != nil {
			t.Fatal(err)
		}
		if d := ttl.TimeToLiveDescription; d.TimeToLiveStatus != types.TimeToLiveStatusEnabled || *d.AttributeName != store.ExpiresAtAttr {
			t.Errorf("%s TTL = %s on %v", tbl, d.TimeToLiveStatus, d.AttributeName)
		}
	}
}

// TestExpiryFollowsTheClock shows that expiry does not wait for DynamoDB's
// TTL deletion: an item the server still holds is gone for the adapter.
func TestExpiryFollowsTheClock(t *testing.T) {
	now := time.Now()
	s, client, names := tables(t, dynamostore.WithClock(func() time.Time { return now }))
	k := store.Key{PK: "p", SK: "s"}
	exp := now.Add(time.Hour)
	if err := s.Put(t.Context(), store.Jobs, store.Item{Key: k, Attrs: map[string]any{"n": 7}, ExpiresAt: exp}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(t.Context(), store.Jobs, k); err != nil {
		t.Fatal(err)
	}

	now = exp
	if _, err := s.Get(t.Context(), store.Jobs, k); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after expiry: err = %v, want ErrNotFound", err)
	}
	raw, err := client.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: new(names[store.Jobs]), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: k.PK}, "SK": &types.AttributeValueMemberS{Value: k.SK},
	}})
	if err != nil || raw.Item == nil {
		t.Fatalf("the server should still hold the expired item: %v", err)
	}
	got, err := s.Update(t.Context(), store.Jobs, k, store.Update{Add: map[string]int64{"n": 1}}, store.NotExists())
	if err != nil || got.Attrs["n"] != int64(1) || !got.ExpiresAt.IsZero() {
		t.Fatalf("Update over the expired item = %+v, %v; want a fresh item", got, err)
	}
}
