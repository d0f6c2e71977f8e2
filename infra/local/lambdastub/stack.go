package lambdastub

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// tableWait bounds how long provisioning waits for a table to be ACTIVE.
const tableWait = 2 * time.Minute

// Config says where everything is.
type Config struct {
	Template string            // path of template.yaml
	Params   map[string]string // parameter overrides
	Names    Names             // stack name, region, account (SQSEndpoint is filled in)

	// The stand-ins of the other services, and the one credential pair
	// every client uses (versitygw checks it; the others accept any).
	DynamoDBEndpoint, S3Endpoint, SQSEndpoint string
	AccessKey, SecretKey                      string

	BinDir  string // <function dir>/bootstrap for every function
	OptDir  string // stands in for /opt (the layers)
	WorkDir string // logs and substituted state machine definitions

	Node        string // node >= 22
	NodeModules string // aws-local-stepfunctions, asl-validator
	SFNRunner   string // infra/local/sfn-run.cjs

	Log func(format string, args ...any)
}

// Stack is the template running on the stand-ins.
type Stack struct {
	Functions     []*Function
	Queues        []*Queue
	Tables        []*Table
	Buckets       []string
	Machines      []*StateMachine
	Runtime       *Runtime
	SFN           *StepFunctions
	URL           string // the Invoke and Step Functions API
	Template      *Template
	notifications []S3Target

	cfg     Config
	names   Names
	ddb     *dynamodb.Client
	s3      *s3.Client
	sqs     *sqs.Client
	srv     *http.Server
	ctx     context.Context
	cancel  context.CancelFunc
	async   sync.WaitGroup
	pollers sync.WaitGroup
}

// New reads the template; nothing runs until Start, so a caller may adjust
// Functions and Queues first (a shorter visibility timeout, say).
func New(cfg Config) (*Stack, error) {
	cfg.Names.SQSEndpoint = cfg.SQSEndpoint
	tpl, err := LoadTemplate(cfg.Template, cfg.Names, cfg.Params)
	if err != nil {
		return nil, err
	}
	s := &Stack{Template: tpl, cfg: cfg, names: cfg.Names}
	if s.Functions, err = tpl.Functions(); err != nil {
		return nil, err
	}
	if s.Queues, err = tpl.Queues(); err != nil {
		return nil, err
	}
	if s.Tables, err = tpl.Tables(); err != nil {
		return nil, err
	}
	if s.Buckets, err = tpl.Buckets(); err != nil {
		return nil, err
	}
	if s.Machines, err = tpl.StateMachines(); err != nil {
		return nil, err
	}
	if s.notifications, err = tpl.BucketNotifications(); err != nil {
		return nil, err
	}
	for _, f := range s.Functions {
		s.notifications = append(s.notifications, f.S3...)
	}
	creds := credentials.NewStaticCredentialsProvider(cfg.AccessKey, cfg.SecretKey, "")
	s.ddb = dynamodb.New(dynamodb.Options{Region: cfg.Names.Region, BaseEndpoint: aws.String(cfg.DynamoDBEndpoint), Credentials: creds, DisableValidateResponseChecksum: true})
	s.s3 = s3.New(s3.Options{Region: cfg.Names.Region, BaseEndpoint: aws.String(cfg.S3Endpoint), Credentials: creds, UsePathStyle: true})
	s.sqs = sqs.New(sqs.Options{Region: cfg.Names.Region, BaseEndpoint: aws.String(cfg.SQSEndpoint), Credentials: creds})
	return s, nil
}

// Function finds a function by logical id.
func (s *Stack) Function(logicalID string) *Function {
	for _, f := range s.Functions {
		if f.LogicalID == logicalID {
			return f
		}
	}
	return nil
}

func (s *Stack) queue(logicalID string) *Queue {
	for _, q := range s.Queues {
		if q.LogicalID == logicalID {
			return q
		}
	}
	return nil
}

// Queue finds a queue by logical id.
func (s *Stack) Queue(logicalID string) *Queue { return s.queue(logicalID) }

func (s *Stack) logf(format string, args ...any) {
	if s.cfg.Log != nil {
		s.cfg.Log(format, args...)
	}
}

// Start provisions the tables, buckets and queues, registers the
// functions and state machines, and serves the APIs on a free port.
func (s *Stack) Start(ctx context.Context) error {
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if err := s.provision(ctx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.URL = "http://" + ln.Addr().String()
	env := map[string]string{
		"AWS_REGION": s.names.Region, "AWS_DEFAULT_REGION": s.names.Region,
		"AWS_ACCESS_KEY_ID": s.cfg.AccessKey, "AWS_SECRET_ACCESS_KEY": s.cfg.SecretKey,
		"AWS_EC2_METADATA_DISABLED": "true",
		// The stand-ins speak plain HTTP, where the SDK cannot send an
		// unseekable body with a trailing checksum: checksums only where an
		// API requires them, as s3blob.NewCompatibleClient does.
		"AWS_REQUEST_CHECKSUM_CALCULATION": "when_required",
		"AWS_RESPONSE_CHECKSUM_VALIDATION": "when_required",
		"AWS_ENDPOINT_URL_DYNAMODB":        s.cfg.DynamoDBEndpoint,
		"AWS_ENDPOINT_URL_S3":              s.cfg.S3Endpoint,
		"AWS_ENDPOINT_URL_SQS":             s.cfg.SQSEndpoint,
		"AWS_ENDPOINT_URL_SFN":             s.URL,
		"AWS_ENDPOINT_URL_LAMBDA":          s.URL,
	}
	logDir := filepath.Join(s.cfg.WorkDir, "logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	s.Runtime = &Runtime{BinDir: s.cfg.BinDir, OptDir: s.cfg.OptDir, Env: env, LogDir: logDir}
	for _, f := range s.Functions {
		if err := s.Runtime.AddFunction(f); err != nil {
			return err
		}
	}
	sfnEnv := os.Environ()
	for _, k := range []string{"AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_ENDPOINT_URL_LAMBDA", "AWS_EC2_METADATA_DISABLED"} {
		sfnEnv = append(sfnEnv, k+"="+env[k])
	}
	s.SFN = &StepFunctions{Node: s.cfg.Node, NodeModules: s.cfg.NodeModules, Runner: s.cfg.SFNRunner, Env: sfnEnv, Dir: s.cfg.WorkDir, Log: s.cfg.Log}
	for _, m := range s.Machines {
		if err := s.SFN.Add(m); err != nil {
			return err
		}
	}
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return nil
}

// Logs returns the output of a function's instances so far.
func (s *Stack) Logs(f *Function) string {
	b, _ := os.ReadFile(filepath.Join(s.cfg.WorkDir, "logs", f.Name+".log"))
	return string(b)
}

// provision creates what the template declares, as CloudFormation would.
func (s *Stack) provision(ctx context.Context) error {
	for _, t := range s.Tables {
		if err := s.createTable(ctx, t); err != nil {
			return err
		}
	}
	for _, b := range s.Buckets {
		if _, err := s.s3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			return fmt.Errorf("create bucket %s: %w", b, err)
		}
	}
	// Dead-letter queues first: a redrive policy names its target's ARN.
	created := map[string]bool{}
	var create func(q *Queue) error
	create = func(q *Queue) error {
		if created[q.LogicalID] {
			return nil
		}
		attrs := map[string]string{
			string(sqstypes.QueueAttributeNameVisibilityTimeout):      strconv.Itoa(int(q.Visibility / time.Second)),
			string(sqstypes.QueueAttributeNameMessageRetentionPeriod): strconv.Itoa(int(q.Retention / time.Second)),
		}
		if q.DLQ != "" {
			dlq := s.queue(q.DLQ)
			if err := create(dlq); err != nil {
				return err
			}
			out, err := s.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(dlq.URL),
				AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
			if err != nil {
				return fmt.Errorf("queue %s: %w", dlq.Name, err)
			}
			dlq.ARN = out.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]
			attrs[string(sqstypes.QueueAttributeNameRedrivePolicy)] = fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"%d"}`, dlq.ARN, q.MaxReceiveCount)
		}
		out, err := s.sqs.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(q.Name), Attributes: attrs})
		if err != nil {
			return fmt.Errorf("create queue %s: %w", q.Name, err)
		}
		q.URL = aws.ToString(out.QueueUrl)
		created[q.LogicalID] = true
		return nil
	}
	for _, q := range s.Queues {
		if err := create(q); err != nil {
			return err
		}
	}
	for _, q := range s.Queues {
		out, err := s.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(q.URL),
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
		if err != nil {
			return fmt.Errorf("queue %s: %w", q.Name, err)
		}
		q.ARN = out.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]
	}
	return nil
}

func (s *Stack) createTable(ctx context.Context, t *Table) error {
	keys := func(k [2]string) []ddbtypes.KeySchemaElement {
		out := []ddbtypes.KeySchemaElement{{AttributeName: aws.String(k[0]), KeyType: ddbtypes.KeyTypeHash}}
		if k[1] != "" {
			out = append(out, ddbtypes.KeySchemaElement{AttributeName: aws.String(k[1]), KeyType: ddbtypes.KeyTypeRange})
		}
		return out
	}
	in := &dynamodb.CreateTableInput{TableName: aws.String(t.Name), KeySchema: keys(t.Keys), BillingMode: ddbtypes.BillingModePayPerRequest}
	for name, typ := range t.Attributes {
		in.AttributeDefinitions = append(in.AttributeDefinitions, ddbtypes.AttributeDefinition{AttributeName: aws.String(name), AttributeType: ddbtypes.ScalarAttributeType(typ)})
	}
	for name, k := range t.Indexes {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, ddbtypes.GlobalSecondaryIndex{IndexName: aws.String(name), KeySchema: keys(k),
			Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeAll}})
	}
	if _, err := s.ddb.CreateTable(ctx, in); err != nil {
		var inUse *ddbtypes.ResourceInUseException
		if !errors.As(err, &inUse) {
			return fmt.Errorf("create table %s: %w", t.Name, err)
		}
	}
	if err := dynamodb.NewTableExistsWaiter(s.ddb).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(t.Name)}, tableWait); err != nil {
		return fmt.Errorf("table %s: %w", t.Name, err)
	}
	if t.TTLAttribute != "" {
		// DynamoDB Local may not know TTL; the service hides expired items itself.
		s.ddb.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(t.Name),
			TimeToLiveSpecification: &ddbtypes.TimeToLiveSpecification{AttributeName: aws.String(t.TTLAttribute), Enabled: aws.Bool(true)}})
	}
	return nil
}

// Close stops the event sources, the executions, the instances and the
// server. The provisioned resources stay (the stand-ins are thrown away).
func (s *Stack) Close() {
	if s.cancel != nil {
		s.cancel()
	}
	s.pollers.Wait()
	s.async.Wait()
	if s.SFN != nil {
		s.SFN.Close()
	}
	if s.srv != nil {
		s.srv.Close()
	}
	if s.Runtime != nil {
		s.Runtime.Close()
	}
}

// S3 is the client of the S3 stand-in (the tests' own PUTs and reads).
func (s *Stack) S3() *s3.Client { return s.s3 }

// SQS is the client of the SQS stand-in.
func (s *Stack) SQS() *sqs.Client { return s.sqs }

// DynamoDB is the client of DynamoDB Local.
func (s *Stack) DynamoDB() *dynamodb.Client { return s.ddb }

// Table finds a table by logical id.
func (s *Stack) Table(logicalID string) *Table {
	for _, t := range s.Tables {
		if t.LogicalID == logicalID {
			return t
		}
	}
	return nil
}
