package integration

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// TestAdminBootstrap: `admin --aws bootstrap`, the README's set-up for
// stacks without CloudFormation (LocalStack), creates the TABLE_* tables
// and the BUCKET bucket, and running it again changes nothing.
func TestAdminBootstrap(t *testing.T) {
	s := newStack(t, nil, nil)
	prefix := s.Template.Stack() + "-boot-"
	env := []string{"BUCKET=" + prefix + "media"}
	for _, name := range []string{"ACCOUNTS", "PLAYLISTS", "LICENSES", "JOBS", "QUOTAS"} {
		env = append(env, "TABLE_"+name+"="+prefix+strings.ToLower(name))
	}
	for range 2 {
		cmd := exec.Command(filepath.Join(binaries(t), "admin", "bootstrap"), "--aws", "bootstrap")
		cmd.Env = append(s.env, env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("admin --aws bootstrap: %v\n%s", err, out)
		}
	}
	ctx := context.Background()
	for _, kv := range env[1:] {
		name := kv[strings.IndexByte(kv, '=')+1:]
		if _, err := s.DynamoDB().DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}); err != nil {
			t.Errorf("table %s: %v", name, err)
		}
	}
	if _, err := s.S3().HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(prefix + "media")}); err != nil {
		t.Errorf("bucket: %v", err)
	}
}
