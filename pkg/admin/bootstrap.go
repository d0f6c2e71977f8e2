package admin

import (
	"context"
	"errors"
	"fmt"
	"io"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"musiccatalog/pkg/app"
	"musiccatalog/pkg/store/dynamostore"
)

// bootstrap creates the tables named by TABLE_* and the bucket BUCKET on
// the AWS endpoints of the environment (AWS_ENDPOINT_URL for LocalStack),
// as template.yaml would; what exists already is kept. It is for stacks
// without CloudFormation: a deployed stack has its own.
func bootstrap(ctx context.Context, cfg app.Config, useAWS bool, out io.Writer) error {
	if !useAWS {
		return usageError("bootstrap works on AWS endpoints: admin --aws bootstrap")
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return fmt.Errorf("load AWS config: %w", err)
	}
	if err := dynamostore.New(dynamodb.NewFromConfig(awsCfg), cfg.Tables).CreateTables(ctx); err != nil {
		return err
	}
	for _, name := range cfg.Tables {
		fmt.Fprintf(out, "table %s\n", name)
	}
	if cfg.Bucket == "" {
		return nil
	}
	client := s3.NewFromConfig(awsCfg, func(o *s3.Options) { o.UsePathStyle = true })
	_, err = client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &cfg.Bucket})
	var owned *s3types.BucketAlreadyOwnedByYou
	if err != nil && !errors.As(err, &owned) {
		return fmt.Errorf("create bucket %s: %w", cfg.Bucket, err)
	}
	fmt.Fprintf(out, "bucket %s\n", cfg.Bucket)
	return nil
}
