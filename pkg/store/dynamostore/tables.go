package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"musiccatalog/pkg/store"
)

// tableWait bounds how long CreateTables waits for a table to be ACTIVE.
const tableWait = 5 * time.Minute

// TableNames names every table of store.AllTables prefix+its logical name.
func TableNames(prefix string) map[store.Table]string {
	m := make(map[store.Table]string, len(store.AllTables))
	for _, t := range store.AllTables {
		m[t] = prefix + string(t)
	}
	return m
}

// LocalClient returns a client for DynamoDB Local (or another stand-in)
// at endpoint, with static credentials and region ("" means us-east-1).
// DynamoDB Local does not send the CRC32 checksums the SDK validates by
// default, so the validation is off.
func LocalClient(endpoint, region string) *dynamodb.Client {
	if region == "" {
		region = "us-east-1"
	}
	return dynamodb.New(dynamodb.Options{
		Region:                          region,
		BaseEndpoint:                    aws.String(endpoint),
		Credentials:                     credentials.NewStaticCredentialsProvider("local", "local", ""),
		DisableValidateResponseChecksum: true,
	})
}

// CreateTables creates every table of store.AllTables that does not exist
// yet, as template.yaml does: PK/SK string keys, the indexes of
// store.Indexes projecting all attributes, on-demand billing, and TTL on
// store.ExpiresAtAttr. It returns when all tables are ACTIVE.
func (s *Store) CreateTables(ctx context.Context) error {
	for _, t := range store.AllTables {
		name, err := s.table(t)
		if err != nil {
			return err
		}
		_, err = s.client.CreateTable(ctx, createTableInput(name, store.Indexes[t]))
		var inUse *types.ResourceInUseException
		if err != nil && !errors.As(err, &inUse) {
			return fmt.Errorf("dynamostore: create table %s: %w", name, err)
		}
		waiter := dynamodb.NewTableExistsWaiter(s.client)
		if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: &name}, tableWait); err != nil {
			return fmt.Errorf("dynamostore: wait for table %s: %w", name, err)
		}
		if err := s.enableTTL(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

func createTableInput(name string, indexes []string) *dynamodb.CreateTableInput {
	attr := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	keys := func(pk, sk string) []types.KeySchemaElement {
		return []types.KeySchemaElement{
			{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange},
		}
	}
	in := &dynamodb.CreateTableInput{
		TableName:            &name,
		AttributeDefinitions: []types.AttributeDefinition{attr(attrPK), attr(attrSK)},
		KeySchema:            keys(attrPK, attrSK),
		BillingMode:          types.BillingModePayPerRequest,
	}
	for _, ix := range indexes {
		in.AttributeDefinitions = append(in.AttributeDefinitions, attr(ix+"PK"), attr(ix+"SK"))
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:  aws.String(ix),
			KeySchema:  keys(ix+"PK", ix+"SK"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		})
	}
	return in
}

// enableTTL turns on TTL unless it is on already. The adapter hides
// expired items itself, so a stand-in without TTL support is no error.
func (s *Store) enableTTL(ctx context.Context, table string) error {
	desc, err := s.client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: &table})
	if err == nil && desc.TimeToLiveDescription != nil {
		switch desc.TimeToLiveDescription.TimeToLiveStatus {
		case types.TimeToLiveStatusEnabled, types.TimeToLiveStatusEnabling:
			return nil
		}
	}
	_, err = s.client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: &table,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(store.ExpiresAtAttr),
			Enabled:       aws.Bool(true),
		},
	})
	if err != nil && !unsupported(err) {
		return fmt.Errorf("dynamostore: enable TTL on %s: %w", table, err)
	}
	return nil
}

func unsupported(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == "UnknownOperationException"
}

// DeleteTables deletes every table of store.AllTables; missing tables are
// skipped. Tests use it to clean up a shared DynamoDB Local.
func (s *Store) DeleteTables(ctx context.Context) error {
	for _, t := range store.AllTables {
		name, err := s.table(t)
		if err != nil {
			return err
		}
		_, err = s.client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: &name})
		var missing *types.ResourceNotFoundException
		if err != nil && !errors.As(err, &missing) {
			return fmt.Errorf("dynamostore: delete table %s: %w", name, err)
		}
	}
	return nil
}
