package lambdastub

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	// A yaml.v3 fork already in the module graph; its nodes keep the
	// intrinsic-function tags (!Ref, !GetAtt, !Sub, ...).
	yaml "github.com/oasdiff/yaml3"
)

// Lambda defaults when neither the function nor Globals says otherwise.
const (
	defaultMemoryMB      = 128
	defaultTimeout       = 3 * time.Second
	defaultSQSBatchSize  = 10
	defaultVisibility    = 30 * time.Second
	defaultQueueRedrives = 0
)

// Names fixes what CloudFormation would choose: the stack name (lower
// case, as bucket names need), region, account, and where the stand-ins
// answer (queue URLs embed the SQS endpoint).
type Names struct {
	Stack, Region, Account string
	SQSEndpoint            string
}

// Template is template.yaml with its intrinsics resolvable.
type Template struct {
	Dir        string // where template.yaml lives (DefinitionUri is relative to it)
	names      Names
	root       *yaml.Node
	resources  map[string]*yaml.Node
	params     map[string]string
	conditions map[string]*yaml.Node
}

// Function is one AWS::Serverless::Function after Globals are merged.
type Function struct {
	LogicalID, Name, ARN string
	// Dir is the function's directory under functions/ (the Makefile's
	// build-<LogicalId> target builds ./functions/<Dir>).
	Dir                 string
	MemoryMB            int
	Timeout             time.Duration
	Env                 map[string]string
	ReservedConcurrency int // 0: unlimited
	SQS                 []SQSSource
	S3                  []S3Target
}

// SQSSource is an SQS event source mapping of a function.
type SQSSource struct {
	QueueLogicalID      string
	BatchSize           int
	ReportItemFailures  bool
	MaximumConcurrency  int
	FunctionLogicalID   string
	FunctionName, Queue string // resolved names
}

// S3Target is where a bucket's notification goes: a queue or a function.
type S3Target struct {
	Bucket   string // bucket name
	Events   []string
	Prefix   string
	Suffix   string
	Queue    string // queue logical id, or
	Function string // function name
}

// Queue is an AWS::SQS::Queue.
type Queue struct {
	LogicalID, Name, ARN string
	URL                  string // set once the queue exists
	Visibility           time.Duration
	Retention            time.Duration
	DLQ                  string // logical id of the dead-letter queue
	MaxReceiveCount      int
}

// Table is an AWS::DynamoDB::Table with its key schema.
type Table struct {
	LogicalID, Name string
	Attributes      map[string]string // name → S|N|B
	Keys            [2]string         // hash, range ("" when none)
	Indexes         map[string][2]string
	TTLAttribute    string
}

// StateMachine is an AWS::Serverless::StateMachine with its definition
// after DefinitionSubstitutions.
type StateMachine struct {
	LogicalID, Name, ARN string
	Definition           []byte
}

// LoadTemplate reads path; params override parameter defaults (as
// `sam deploy --parameter-overrides` would).
func LoadTemplate(path string, names Names, params map[string]string) (*Template, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	if names.Stack != strings.ToLower(names.Stack) || names.Stack == "" {
		return nil, fmt.Errorf("stack name %q: want lower case (bucket names derive from it)", names.Stack)
	}
	t := &Template{Dir: filepath.Dir(path), names: names, root: doc.Content[0],
		resources: entries(get(doc.Content[0], "Resources")), params: map[string]string{},
		conditions: entries(get(doc.Content[0], "Conditions"))}
	for name, p := range entries(get(t.root, "Parameters")) {
		if d := get(p, "Default"); d != nil {
			t.params[name] = d.Value
		}
	}
	for k, v := range params {
		if get(get(t.root, "Parameters"), k) == nil {
			return nil, fmt.Errorf("parameter %s: not declared in the template", k)
		}
		t.params[k] = v
	}
	return t, nil
}

func get(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func entries(n *yaml.Node) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n == nil || n.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		out[n.Content[i].Value] = n.Content[i+1]
	}
	return out
}

func (t *Template) typeOf(id string) string {
	if n := get(t.resources[id], "Type"); n != nil {
		return n.Value
	}
	return ""
}

func (t *Template) ofType(typ string) []string {
	var ids []string
	for id := range t.resources {
		if t.typeOf(id) == typ {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// physical is the name CloudFormation would give a resource without an
// explicit one: stack name and logical id.
func (t *Template) physical(id string) string { return t.names.Stack + "-" + id }

// ref resolves !Ref name.
func (t *Template) ref(name string) (any, error) {
	switch name {
	case "AWS::Region":
		return t.names.Region, nil
	case "AWS::AccountId":
		return t.names.Account, nil
	case "AWS::StackName":
		return t.names.Stack, nil
	case "AWS::Partition":
		return "aws", nil
	case "AWS::URLSuffix":
		return "amazonaws.com", nil
	case "AWS::NoValue":
		return nil, nil
	}
	if v, ok := t.params[name]; ok {
		return v, nil
	}
	if t.resources[name] == nil {
		return nil, fmt.Errorf("!Ref %s: no such parameter or resource", name)
	}
	switch t.typeOf(name) {
	case "AWS::S3::Bucket":
		return t.bucketName(name)
	case "AWS::SQS::Queue":
		return strings.TrimRight(t.names.SQSEndpoint, "/") + "/" + t.names.Account + "/" + t.physical(name), nil
	case "AWS::Serverless::StateMachine", "AWS::StepFunctions::StateMachine":
		return t.stateMachineARN(name), nil
	default: // functions, tables, APIs, topics...: their name
		return t.physical(name), nil
	}
}

func (t *Template) stateMachineARN(id string) string {
	return fmt.Sprintf("arn:aws:states:%s:%s:stateMachine:%s", t.names.Region, t.names.Account, t.physical(id))
}

func (t *Template) functionARN(id string) string {
	return fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", t.names.Region, t.names.Account, t.physical(id))
}

func (t *Template) queueARN(id string) string {
	return fmt.Sprintf("arn:aws:sqs:%s:%s:%s", t.names.Region, t.names.Account, t.physical(id))
}

func (t *Template) bucketName(id string) (string, error) {
	if n := get(get(t.resources[id], "Properties"), "BucketName"); n != nil {
		return t.str(n)
	}
	return strings.ToLower(t.physical(id)), nil
}

// getAtt resolves !GetAtt id.attr.
func (t *Template) getAtt(target string) (any, error) {
	id, attr, _ := strings.Cut(target, ".")
	if t.resources[id] == nil {
		return nil, fmt.Errorf("!GetAtt %s: no such resource", target)
	}
	switch typ := t.typeOf(id); {
	case attr == "Arn" && typ == "AWS::Serverless::Function":
		return t.functionARN(id), nil
	case attr == "Arn" && typ == "AWS::SQS::Queue":
		return t.queueARN(id), nil
	case attr == "QueueName":
		return t.physical(id), nil
	case attr == "Arn" && typ == "AWS::S3::Bucket":
		name, err := t.bucketName(id)
		return "arn:aws:s3:::" + name, err
	case attr == "Arn" && strings.HasSuffix(typ, "::Table"):
		return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", t.names.Region, t.names.Account, t.physical(id)), nil
	case attr == "Name":
		return t.physical(id), nil
	case attr == "Arn":
		return "arn:aws:local:" + t.names.Region + ":" + t.names.Account + ":" + t.physical(id), nil
	}
	return nil, fmt.Errorf("!GetAtt %s: attribute not known to the stand-in", target)
}

var subVar = regexp.MustCompile(`\$\{([^}]+)\}`)

// resolve evaluates n: scalars as strings, mappings and sequences as
// map[string]any and []any, intrinsic functions evaluated.
func (t *Template) resolve(n *yaml.Node) (any, error) {
	if n == nil {
		return nil, nil
	}
	if n.Kind == yaml.AliasNode {
		return t.resolve(n.Alias)
	}
	args := func() []*yaml.Node {
		if n.Kind == yaml.SequenceNode {
			return n.Content
		}
		return []*yaml.Node{n}
	}
	switch n.Tag {
	case "!Ref":
		return t.ref(n.Value)
	case "!GetAtt":
		if n.Kind == yaml.SequenceNode && len(n.Content) == 2 {
			return t.getAtt(n.Content[0].Value + "." + n.Content[1].Value)
		}
		return t.getAtt(n.Value)
	case "!Sub":
		return t.sub(args())
	case "!If":
		a := args()
		if len(a) != 3 {
			return nil, fmt.Errorf("line %d: !If wants three arguments", n.Line)
		}
		ok, err := t.condition(a[0].Value)
		if err != nil {
			return nil, err
		}
		if ok {
			return t.resolve(a[1])
		}
		return t.resolve(a[2])
	case "!Join":
		a := args()
		if len(a) != 2 {
			return nil, fmt.Errorf("line %d: !Join wants two arguments", n.Line)
		}
		list, err := t.resolve(a[1])
		if err != nil {
			return nil, err
		}
		items, _ := list.([]any)
		parts := make([]string, 0, len(items))
		for _, it := range items {
			parts = append(parts, fmt.Sprint(it))
		}
		return strings.Join(parts, a[0].Value), nil
	case "!Not", "!Equals", "!And", "!Or", "!Condition":
		return t.evalCondition(n)
	}
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		return nil, fmt.Errorf("line %d: intrinsic %s not known to the stand-in", n.Line, n.Tag)
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value, nil
	case yaml.SequenceNode:
		out := []any{}
		for _, c := range n.Content {
			v, err := t.resolve(c)
			if err != nil {
				return nil, err
			}
			if v != nil {
				out = append(out, v)
			}
		}
		return out, nil
	case yaml.MappingNode:
		out := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			var (
				v   any
				err error
			)
			switch key {
			case "Fn::GetAtt", "Ref", "Fn::Sub", "Fn::If":
				return nil, fmt.Errorf("line %d: long-form %s not supported by the stand-in; use the short form", n.Line, key)
			default:
				v, err = t.resolve(n.Content[i+1])
			}
			if err != nil {
				return nil, err
			}
			if v != nil {
				out[key] = v
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("line %d: unexpected YAML node", n.Line)
}

func (t *Template) sub(a []*yaml.Node) (any, error) {
	text := a[0].Value
	local := map[string]any{}
	if len(a) == 2 {
		for k, v := range entries(a[1]) {
			r, err := t.resolve(v)
			if err != nil {
				return nil, err
			}
			local[k] = r
		}
	}
	var failed error
	out := subVar.ReplaceAllStringFunc(text, func(m string) string {
		name := m[2 : len(m)-1]
		if strings.HasPrefix(name, "!") {
			return "${" + name[1:] + "}"
		}
		var (
			v   any
			err error
		)
		if lv, ok := local[name]; ok {
			v = lv
		} else if id, attr, ok := strings.Cut(name, "."); ok && !strings.HasPrefix(name, "AWS::") {
			v, err = t.getAtt(id + "." + attr)
		} else {
			v, err = t.ref(name)
		}
		if err != nil && failed == nil {
			failed = err
		}
		return fmt.Sprint(v)
	})
	return out, failed
}

func (t *Template) condition(name string) (bool, error) {
	c := t.conditions[name]
	if c == nil {
		return false, fmt.Errorf("condition %s: not declared", name)
	}
	v, err := t.evalCondition(c)
	if err != nil {
		return false, err
	}
	b, _ := v.(bool)
	return b, nil
}

func (t *Template) evalCondition(n *yaml.Node) (any, error) {
	a := n.Content
	switch n.Tag {
	case "!Condition":
		return t.condition(n.Value)
	case "!Not":
		if len(a) != 1 {
			return nil, fmt.Errorf("line %d: !Not wants one argument", n.Line)
		}
		v, err := t.evalCondition(a[0])
		b, _ := v.(bool)
		return !b, err
	case "!And", "!Or":
		all := n.Tag == "!And"
		for _, c := range a {
			v, err := t.evalCondition(c)
			if err != nil {
				return nil, err
			}
			if b, _ := v.(bool); b != all {
				return !all, nil
			}
		}
		return all, nil
	case "!Equals":
		if len(a) != 2 {
			return nil, fmt.Errorf("line %d: !Equals wants two arguments", n.Line)
		}
		x, err := t.resolve(a[0])
		if err != nil {
			return nil, err
		}
		y, err := t.resolve(a[1])
		return fmt.Sprint(x) == fmt.Sprint(y), err
	}
	return nil, fmt.Errorf("line %d: %s is not a condition", n.Line, n.Tag)
}

func (t *Template) str(n *yaml.Node) (string, error) {
	v, err := t.resolve(n)
	if err != nil || v == nil {
		return "", err
	}
	return fmt.Sprint(v), nil
}

func (t *Template) num(n *yaml.Node, def int) (int, error) {
	s, err := t.str(n)
	if err != nil || s == "" {
		return def, err
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("line %d: %q is not a number", n.Line, s)
	}
	return v, nil
}

// FunctionDir names a function's directory under functions/ after its
// logical id, as the Makefile's FUNCTIONS list pairs them
// (RecognitionExtractFunction → recognition-extract).
func FunctionDir(logicalID string) string {
	base := strings.TrimSuffix(logicalID, "Function")
	var b strings.Builder
	for i, r := range base {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Functions returns every AWS::Serverless::Function with Globals applied.
func (t *Template) Functions() ([]*Function, error) {
	globals := get(get(t.root, "Globals"), "Function")
	var out []*Function
	for _, id := range t.ofType("AWS::Serverless::Function") {
		props := get(t.resources[id], "Properties")
		prop := func(key string) *yaml.Node {
			if n := get(props, key); n != nil {
				return n
			}
			return get(globals, key)
		}
		f := &Function{LogicalID: id, Name: t.physical(id), ARN: t.functionARN(id), Dir: FunctionDir(id), Env: map[string]string{}}
		var err error
		if f.MemoryMB, err = t.num(prop("MemorySize"), defaultMemoryMB); err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		secs, err := t.num(prop("Timeout"), int(defaultTimeout/time.Second))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		f.Timeout = time.Duration(secs) * time.Second
		if f.ReservedConcurrency, err = t.num(prop("ReservedConcurrentExecutions"), 0); err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		for _, src := range []*yaml.Node{globals, props} { // the function's own win
			for k, v := range entries(get(get(src, "Environment"), "Variables")) {
				s, err := t.str(v)
				if err != nil {
					return nil, fmt.Errorf("%s: env %s: %w", id, k, err)
				}
				f.Env[k] = s
			}
		}
		for evName, ev := range entries(get(props, "Events")) {
			ep := get(ev, "Properties")
			switch get(ev, "Type").Value {
			case "SQS":
				q, err := t.str(get(ep, "Queue"))
				if err != nil {
					return nil, fmt.Errorf("%s.%s: %w", id, evName, err)
				}
				src := SQSSource{FunctionLogicalID: id, FunctionName: f.Name, QueueLogicalID: t.queueByARN(q)}
				if src.QueueLogicalID == "" {
					return nil, fmt.Errorf("%s.%s: queue %s is not in the template", id, evName, q)
				}
				src.Queue = t.physical(src.QueueLogicalID)
				if src.BatchSize, err = t.num(get(ep, "BatchSize"), defaultSQSBatchSize); err != nil {
					return nil, err
				}
				if src.MaximumConcurrency, err = t.num(get(get(ep, "ScalingConfig"), "MaximumConcurrency"), 0); err != nil {
					return nil, err
				}
				types, _ := t.resolve(get(ep, "FunctionResponseTypes"))
				list, _ := types.([]any)
				src.ReportItemFailures = slices.Contains(list, any("ReportBatchItemFailures"))
				f.SQS = append(f.SQS, src)
			case "S3":
				bucket, err := t.str(get(ep, "Bucket"))
				if err != nil {
					return nil, fmt.Errorf("%s.%s: %w", id, evName, err)
				}
				target, err := t.s3Target(bucket, get(ep, "Events"), get(ep, "Filter"))
				if err != nil {
					return nil, fmt.Errorf("%s.%s: %w", id, evName, err)
				}
				target.Function = f.Name
				f.S3 = append(f.S3, target)
			}
		}
		out = append(out, f)
	}
	return out, nil
}

func (t *Template) queueByARN(arn string) string {
	for _, id := range t.ofType("AWS::SQS::Queue") {
		if t.queueARN(id) == arn {
			return id
		}
	}
	return ""
}

func (t *Template) s3Target(bucket string, events, filter *yaml.Node) (S3Target, error) {
	target := S3Target{Bucket: bucket}
	ev, err := t.resolve(events)
	if err != nil {
		return target, err
	}
	switch v := ev.(type) {
	case string:
		target.Events = []string{v}
	case []any:
		for _, e := range v {
			target.Events = append(target.Events, fmt.Sprint(e))
		}
	}
	for _, rule := range get(get(filter, "S3Key"), "Rules").Content {
		name, err := t.str(get(rule, "Name"))
		if err != nil {
			return target, err
		}
		value, err := t.str(get(rule, "Value"))
		if err != nil {
			return target, err
		}
		switch strings.ToLower(name) {
		case "prefix":
			target.Prefix = value
		case "suffix":
			target.Suffix = value
		}
	}
	return target, nil
}

// BucketNotifications returns the queue and function targets of every
// bucket's NotificationConfiguration.
func (t *Template) BucketNotifications() ([]S3Target, error) {
	var out []S3Target
	for _, id := range t.ofType("AWS::S3::Bucket") {
		bucket, err := t.bucketName(id)
		if err != nil {
			return nil, err
		}
		nc := get(get(t.resources[id], "Properties"), "NotificationConfiguration")
		for _, kind := range []string{"QueueConfigurations", "LambdaConfigurations"} {
			n := get(nc, kind)
			if n == nil {
				continue
			}
			for _, c := range n.Content {
				target, err := t.s3Target(bucket, get(c, "Event"), get(c, "Filter"))
				if err != nil {
					return nil, fmt.Errorf("%s: %w", id, err)
				}
				if kind == "QueueConfigurations" {
					arn, err := t.str(get(c, "Queue"))
					if err != nil {
						return nil, err
					}
					if target.Queue = t.queueByARN(arn); target.Queue == "" {
						return nil, fmt.Errorf("%s: queue %s is not in the template", id, arn)
					}
				} else {
					arn, err := t.str(get(c, "Function"))
					if err != nil {
						return nil, err
					}
					target.Function = arn[strings.LastIndex(arn, ":")+1:]
				}
				out = append(out, target)
			}
		}
	}
	return out, nil
}

// Buckets returns the names of the template's buckets.
func (t *Template) Buckets() ([]string, error) {
	var out []string
	for _, id := range t.ofType("AWS::S3::Bucket") {
		name, err := t.bucketName(id)
		if err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, nil
}

// Queues returns every AWS::SQS::Queue.
func (t *Template) Queues() ([]*Queue, error) {
	var out []*Queue
	for _, id := range t.ofType("AWS::SQS::Queue") {
		props := get(t.resources[id], "Properties")
		q := &Queue{LogicalID: id, Name: t.physical(id), ARN: t.queueARN(id)}
		vis, err := t.num(get(props, "VisibilityTimeout"), int(defaultVisibility/time.Second))
		if err != nil {
			return nil, err
		}
		q.Visibility = time.Duration(vis) * time.Second
		ret, err := t.num(get(props, "MessageRetentionPeriod"), 345600)
		if err != nil {
			return nil, err
		}
		q.Retention = time.Duration(ret) * time.Second
		if rp := get(props, "RedrivePolicy"); rp != nil {
			arn, err := t.str(get(rp, "deadLetterTargetArn"))
			if err != nil {
				return nil, err
			}
			if q.DLQ = t.queueByARN(arn); q.DLQ == "" {
				return nil, fmt.Errorf("%s: dead-letter queue %s is not in the template", id, arn)
			}
			if q.MaxReceiveCount, err = t.num(get(rp, "maxReceiveCount"), defaultQueueRedrives); err != nil {
				return nil, err
			}
		}
		out = append(out, q)
	}
	return out, nil
}

// Tables returns every AWS::DynamoDB::Table with its key schema.
func (t *Template) Tables() ([]*Table, error) {
	var out []*Table
	for _, id := range t.ofType("AWS::DynamoDB::Table") {
		props := get(t.resources[id], "Properties")
		tb := &Table{LogicalID: id, Name: t.physical(id), Attributes: map[string]string{}, Indexes: map[string][2]string{}}
		if n := get(props, "TableName"); n != nil {
			name, err := t.str(n)
			if err != nil {
				return nil, err
			}
			tb.Name = name
		}
		if ad := get(props, "AttributeDefinitions"); ad != nil {
			for _, a := range ad.Content {
				tb.Attributes[get(a, "AttributeName").Value] = get(a, "AttributeType").Value
			}
		}
		keys := func(n *yaml.Node) (k [2]string) {
			if n == nil {
				return
			}
			for _, e := range n.Content {
				if get(e, "KeyType").Value == "HASH" {
					k[0] = get(e, "AttributeName").Value
				} else {
					k[1] = get(e, "AttributeName").Value
				}
			}
			return
		}
		tb.Keys = keys(get(props, "KeySchema"))
		if gsis := get(props, "GlobalSecondaryIndexes"); gsis != nil {
			for _, g := range gsis.Content {
				tb.Indexes[get(g, "IndexName").Value] = keys(get(g, "KeySchema"))
			}
		}
		if ttl := get(props, "TimeToLiveSpecification"); ttl != nil && get(ttl, "Enabled") != nil && get(ttl, "Enabled").Value == "true" {
			tb.TTLAttribute = get(ttl, "AttributeName").Value
		}
		out = append(out, tb)
	}
	return out, nil
}

// StateMachines returns every state machine with its definition file
// read and DefinitionSubstitutions applied.
func (t *Template) StateMachines() ([]*StateMachine, error) {
	var out []*StateMachine
	for _, id := range t.ofType("AWS::Serverless::StateMachine") {
		props := get(t.resources[id], "Properties")
		uri, err := t.str(get(props, "DefinitionUri"))
		if err != nil || uri == "" {
			return nil, fmt.Errorf("%s: DefinitionUri: want a local file (%v)", id, err)
		}
		def, err := os.ReadFile(filepath.Join(t.Dir, uri))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		subs := map[string]string{}
		for k, v := range entries(get(props, "DefinitionSubstitutions")) {
			if subs[k], err = t.str(v); err != nil {
				return nil, fmt.Errorf("%s: substitution %s: %w", id, k, err)
			}
		}
		var missing []string
		text := subVar.ReplaceAllStringFunc(string(def), func(m string) string {
			name := m[2 : len(m)-1]
			v, ok := subs[name]
			if !ok {
				missing = append(missing, name)
				return m
			}
			return v
		})
		if len(missing) > 0 {
			return nil, fmt.Errorf("%s: %s has placeholders without a substitution: %v", id, uri, missing)
		}
		out = append(out, &StateMachine{LogicalID: id, Name: t.physical(id), ARN: t.stateMachineARN(id), Definition: []byte(text)})
	}
	return out, nil
}

// Stack is the stack name the template is read under.
func (t *Template) Stack() string { return t.names.Stack }
