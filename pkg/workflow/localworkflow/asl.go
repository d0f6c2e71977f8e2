package localworkflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// definition is a parsed, validated state machine.
type definition struct {
	StartAt string            `json:"StartAt"`
	States  map[string]*state `json:"States"`
	// Timeout bounds the whole execution (the machine's TimeoutSeconds;
	// 0: none): past it the execution fails with States.Timeout, a task
	// running then included.
	Timeout time.Duration `json:"-"`
}

// machineFields are the top-level fields a definition may have locally.
var machineFields = []string{"Comment", "StartAt", "States", "TimeoutSeconds", "Version"}

type state struct {
	Type           string         `json:"Type"`
	Resource       string         `json:"Resource"`
	Parameters     map[string]any `json:"Parameters"`
	ResultPath     *string        `json:"-"` // nil: JSON null (discard the result)
	TimeoutSeconds float64        `json:"TimeoutSeconds"`
	Retry          []retrier      `json:"Retry"`
	Catch          []catcher      `json:"Catch"`
	Result         any            `json:"Result"`
	Next           string         `json:"Next"`
	End            bool           `json:"End"`
	Error          string         `json:"Error"`
	Cause          string         `json:"Cause"`
}

type retrier struct {
	ErrorEquals     []string `json:"ErrorEquals"`
	IntervalSeconds *float64 `json:"IntervalSeconds"`
	MaxAttempts     *int     `json:"MaxAttempts"`
	BackoffRate     *float64 `json:"BackoffRate"`
	MaxDelaySeconds *float64 `json:"MaxDelaySeconds"`
}

type catcher struct {
	ErrorEquals []string `json:"ErrorEquals"`
	ResultPath  *string  `json:"-"`
	Next        string   `json:"Next"`
}

// Defaults of the States Language for Retry fields.
const (
	defaultInterval    = 1.0
	defaultMaxAttempts = 3
	defaultBackoff     = 2.0
)

// knownFields are the state fields this runner understands; any other
// field is refused rather than silently ignored.
var knownFields = map[string][]string{
	"Task":    {"Type", "Comment", "Resource", "Parameters", "ResultPath", "TimeoutSeconds", "Retry", "Catch", "Next", "End"},
	"Pass":    {"Type", "Comment", "Parameters", "Result", "ResultPath", "Next", "End"},
	"Succeed": {"Type", "Comment"},
	"Fail":    {"Type", "Comment", "Error", "Cause"},
}

var placeholderRE = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)\}`)

// substitute replaces "${Name}" placeholders like SAM's
// DefinitionSubstitutions; a placeholder without a value is an error.
func substitute(def []byte, subs map[string]string) ([]byte, error) {
	var missing []string
	out := placeholderRE.ReplaceAllFunc(def, func(m []byte) []byte {
		name := string(m[2 : len(m)-1])
		v, ok := subs[name]
		if !ok {
			missing = append(missing, name)
			return m
		}
		// The value lands inside a JSON string.
		b, _ := json.Marshal(v)
		return b[1 : len(b)-1]
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("no substitution for %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// parseDefinition parses and validates an ASL document.
func parseDefinition(data []byte) (*definition, error) {
	var raw struct {
		StartAt        string                     `json:"StartAt"`
		States         map[string]json.RawMessage `json:"States"`
		TimeoutSeconds float64                    `json:"TimeoutSeconds"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	for f := range top {
		if !slices.Contains(machineFields, f) {
			return nil, fmt.Errorf("top-level field %q is not supported locally", f)
		}
	}
	if raw.TimeoutSeconds < 0 {
		return nil, fmt.Errorf("TimeoutSeconds %v is negative", raw.TimeoutSeconds)
	}
	def := &definition{StartAt: raw.StartAt, States: map[string]*state{}, Timeout: time.Duration(raw.TimeoutSeconds * float64(time.Second))}
	for name, body := range raw.States {
		st, err := parseState(body)
		if err != nil {
			return nil, fmt.Errorf("state %q: %w", name, err)
		}
		def.States[name] = st
	}
	return def, def.validate()
}

func parseState(body json.RawMessage) (*state, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, err
	}
	st := &state{}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(st); err != nil {
		return nil, err
	}
	allowed, ok := knownFields[st.Type]
	if !ok {
		return nil, fmt.Errorf("type %q is not supported locally", st.Type)
	}
	for f := range fields {
		if !slices.Contains(allowed, f) {
			return nil, fmt.Errorf("field %q is not supported locally for a %s state", f, st.Type)
		}
	}
	dollar := "$"
	st.ResultPath = &dollar
	if rp, ok := fields["ResultPath"]; ok {
		st.ResultPath = nil
		if err := json.Unmarshal(rp, &st.ResultPath); err != nil {
			return nil, fmt.Errorf("ResultPath: %w", err)
		}
	}
	var catches []struct {
		ResultPath json.RawMessage `json:"ResultPath"`
	}
	if c, ok := fields["Catch"]; ok {
		if err := json.Unmarshal(c, &catches); err != nil {
			return nil, err
		}
		for i, c := range catches {
			rp := "$"
			st.Catch[i].ResultPath = &rp
			if c.ResultPath != nil {
				if err := json.Unmarshal(c.ResultPath, &st.Catch[i].ResultPath); err != nil {
					return nil, fmt.Errorf("Catch[%d].ResultPath: %w", i, err)
				}
			}
		}
	}
	return st, nil
}

func (d *definition) validate() error {
	if _, ok := d.States[d.StartAt]; !ok {
		return fmt.Errorf("StartAt %q is not a state", d.StartAt)
	}
	target := func(from, to string) error {
		if _, ok := d.States[to]; !ok {
			return fmt.Errorf("state %q: next state %q does not exist", from, to)
		}
		return nil
	}
	for name, st := range d.States {
		switch st.Type {
		case "Task", "Pass":
			if st.Type == "Task" && st.Resource == "" {
				return fmt.Errorf("state %q: Task without Resource", name)
			}
			if st.End == (st.Next != "") {
				return fmt.Errorf("state %q: needs exactly one of Next and End", name)
			}
			if st.Next != "" {
				if err := target(name, st.Next); err != nil {
					return err
				}
			}
			if err := checkTemplate(st.Parameters); err != nil {
				return fmt.Errorf("state %q: Parameters: %w", name, err)
			}
			if st.ResultPath != nil {
				if _, err := parsePath(*st.ResultPath); err != nil {
					return fmt.Errorf("state %q: ResultPath: %w", name, err)
				}
			}
			for i, r := range st.Retry {
				if err := checkErrorEquals(r.ErrorEquals, i == len(st.Retry)-1); err != nil {
					return fmt.Errorf("state %q: Retry[%d]: %w", name, i, err)
				}
				if r.MaxAttempts != nil && *r.MaxAttempts < 0 || r.BackoffRate != nil && *r.BackoffRate < 1 {
					return fmt.Errorf("state %q: Retry[%d]: MaxAttempts must be ≥ 0 and BackoffRate ≥ 1", name, i)
				}
			}
			for i, c := range st.Catch {
				if err := checkErrorEquals(c.ErrorEquals, i == len(st.Catch)-1); err != nil {
					return fmt.Errorf("state %q: Catch[%d]: %w", name, i, err)
				}
				if err := target(name, c.Next); err != nil {
					return err
				}
				if c.ResultPath != nil {
					if _, err := parsePath(*c.ResultPath); err != nil {
						return fmt.Errorf("state %q: Catch[%d].ResultPath: %w", name, i, err)
					}
				}
			}
		}
	}
	return nil
}

// checkErrorEquals applies the States Language rule that States.ALL stands
// alone and only in the last retrier or catcher.
func checkErrorEquals(names []string, last bool) error {
	if len(names) == 0 {
		return errors.New("empty ErrorEquals")
	}
	if slices.Contains(names, "States.ALL") && (len(names) > 1 || !last) {
		return errors.New("States.ALL must appear alone in the last rule")
	}
	return nil
}

// tasks lists the Task resources met from StartAt following Next, the
// order an execution without failures runs them in.
func (d *definition) tasks() []string {
	var out []string
	seen := map[string]bool{}
	for name := d.StartAt; name != "" && !seen[name]; {
		seen[name] = true
		st := d.States[name]
		if st.Type == "Task" {
			out = append(out, st.Resource)
		}
		if st.End {
			break
		}
		name = st.Next
	}
	return out
}

// matches reports whether an error named name is covered by ErrorEquals.
func matches(errorEquals []string, name string) bool {
	for _, e := range errorEquals {
		switch {
		case e == name, e == "States.ALL":
			return true
		case e == "States.TaskFailed" && name != "States.Timeout":
			return true
		}
	}
	return false
}

// parsePath accepts "$" and "$.a.b" (the reference paths our machines use).
func parsePath(p string) ([]string, error) {
	if p == "$" {
		return nil, nil
	}
	rest, ok := strings.CutPrefix(p, "$.")
	if !ok || rest == "" {
		return nil, fmt.Errorf("path %q: only $ and $.field paths are supported locally", p)
	}
	parts := strings.Split(rest, ".")
	for _, part := range parts {
		if part == "" || strings.ContainsAny(part, "[]*@()?'\"") {
			return nil, fmt.Errorf("path %q: only $ and $.field paths are supported locally", p)
		}
	}
	return parts, nil
}

func checkTemplate(v any) error {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if strings.HasSuffix(k, ".$") {
				s, ok := val.(string)
				if !ok {
					return fmt.Errorf("%q must name a path", k)
				}
				if _, err := parsePath(s); err != nil {
					return err
				}
				continue
			}
			if err := checkTemplate(val); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := checkTemplate(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// get reads a path from data; a missing field is an error, as in Step
// Functions (States.Runtime).
func get(data any, p string) (any, error) {
	parts, _ := parsePath(p)
	for _, part := range parts {
		m, ok := data.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("path %s: %q is not an object field", p, part)
		}
		if data, ok = m[part]; !ok {
			return nil, fmt.Errorf("path %s: no field %q", p, part)
		}
	}
	return data, nil
}

// set returns data with the value at path p replaced by v.
func set(data any, p string, v any) (any, error) {
	parts, _ := parsePath(p)
	if len(parts) == 0 {
		return v, nil
	}
	root, ok := data.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("path %s: input is not an object", p)
	}
	root = cloneMap(root)
	m := root
	for _, part := range parts[:len(parts)-1] {
		child, ok := m[part].(map[string]any)
		if !ok {
			child = map[string]any{}
		} else {
			child = cloneMap(child)
		}
		m[part] = child
		m = child
	}
	m[parts[len(parts)-1]] = v
	return root, nil
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// render applies a Parameters template to data.
func render(tmpl any, data any) (any, error) {
	switch x := tmpl.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			if key, ok := strings.CutSuffix(k, ".$"); ok {
				val, err := get(data, v.(string))
				if err != nil {
					return nil, err
				}
				out[key] = val
				continue
			}
			val, err := render(v, data)
			if err != nil {
				return nil, err
			}
			out[k] = val
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			v, err := render(e, data)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	return tmpl, nil
}
