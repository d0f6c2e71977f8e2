package store

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// Limits DynamoDB enforces; the adapters enforce them alike so that what
// works against the local twin also works in AWS.
const (
	MaxTxOps    = 100        // operations per Transact
	MaxItemSize = 400 * 1024 // bytes, computed like DynamoDB (ItemSize)
)

// Numbers DynamoDB cannot store.
const (
	minFloatMagnitude = 1e-130
	maxFloatMagnitude = 1e126
)

// ErrInvalid marks a request the store rejects before touching any data:
// a bad key, attribute name, value, condition, query or transaction.
var ErrInvalid = errors.New("store: invalid request")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// NormalizeValue checks that v is a storable attribute value and returns
// it in the form adapters return: int and int32 widen to int64, a float64
// holding a whole number in int64 range becomes int64 (DynamoDB keeps no
// difference between 2 and 2.0), and a nil []byte becomes empty.
func NormalizeValue(v any) (any, error) {
	switch x := v.(type) {
	case string, int64, bool:
		return x, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case float64:
		return normalizeFloat(x)
	case []byte:
		if x == nil {
			return []byte{}, nil
		}
		return x, nil
	default:
		return nil, invalidf("unsupported attribute value %T", v)
	}
}

func normalizeFloat(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, invalidf("number %v is not storable", f)
	}
	if f == math.Trunc(f) && f >= math.MinInt64 && f < math.MaxInt64 {
		return int64(f), nil
	}
	if m := math.Abs(f); m < minFloatMagnitude || m >= maxFloatMagnitude {
		return nil, invalidf("number %v is outside the range DynamoDB stores", f)
	}
	return f, nil
}

// CheckTable reports whether t is one of AllTables.
func CheckTable(t Table) error {
	if !slices.Contains(AllTables, t) {
		return invalidf("unknown table %q", t)
	}
	return nil
}

// CheckKey reports whether k addresses an item: both parts are non-empty.
func CheckKey(k Key) error {
	if k.PK == "" || k.SK == "" {
		return invalidf("key %q/%q: PK and SK must be non-empty", k.PK, k.SK)
	}
	return nil
}

func checkAttrName(name string) error {
	switch name {
	case "":
		return invalidf("empty attribute name")
	case "PK", "SK", ExpiresAtAttr:
		return invalidf("attribute name %q is reserved", name)
	}
	return nil
}

// isIndexKeyAttr reports whether name is a key attribute of one of t's
// indexes; DynamoDB only accepts non-empty strings there.
func isIndexKeyAttr(t Table, name string) bool {
	for _, ix := range Indexes[t] {
		if name == ix+"PK" || name == ix+"SK" {
			return true
		}
	}
	return false
}

func normalizeAttr(t Table, name string, v any) (any, error) {
	if err := checkAttrName(name); err != nil {
		return nil, err
	}
	nv, err := NormalizeValue(v)
	if err != nil {
		return nil, fmt.Errorf("attribute %q: %w", name, err)
	}
	if isIndexKeyAttr(t, name) {
		if s, ok := nv.(string); !ok || s == "" {
			return nil, invalidf("index key attribute %q must be a non-empty string", name)
		}
	}
	return nv, nil
}

// normalizeExpiry keeps whole seconds: DynamoDB TTL counts unix seconds.
func normalizeExpiry(t time.Time) (time.Time, error) {
	if t.IsZero() {
		return time.Time{}, nil
	}
	if t.Unix() <= 0 {
		return time.Time{}, invalidf("expiry %v is not after 1970", t)
	}
	return time.Unix(t.Unix(), 0).UTC(), nil
}

// NormalizeItem checks that it can be stored in t and returns a copy with
// normalized values and expiry.
func NormalizeItem(t Table, it Item) (Item, error) {
	if err := CheckTable(t); err != nil {
		return Item{}, err
	}
	if err := CheckKey(it.Key); err != nil {
		return Item{}, err
	}
	out := Item{Key: it.Key, Attrs: make(map[string]any, len(it.Attrs))}
	for name, v := range it.Attrs {
		nv, err := normalizeAttr(t, name, v)
		if err != nil {
			return Item{}, err
		}
		out.Attrs[name] = nv
	}
	var err error
	if out.ExpiresAt, err = normalizeExpiry(it.ExpiresAt); err != nil {
		return Item{}, err
	}
	if err := CheckItemSize(out); err != nil {
		return Item{}, err
	}
	return out, nil
}

// NormalizeUpdate checks u for table t and returns a copy with normalized
// values. An attribute may appear in only one of Set, Add and Remove.
func NormalizeUpdate(t Table, u Update) (Update, error) {
	if err := CheckTable(t); err != nil {
		return Update{}, err
	}
	out := Update{Remove: slices.Clone(u.Remove)}
	seen := map[string]bool{}
	claim := func(name string) error {
		if err := checkAttrName(name); err != nil {
			return err
		}
		if seen[name] {
			return invalidf("attribute %q appears twice in one update", name)
		}
		seen[name] = true
		return nil
	}
	if len(u.Set) > 0 {
		out.Set = make(map[string]any, len(u.Set))
		for name, v := range u.Set {
			if err := claim(name); err != nil {
				return Update{}, err
			}
			nv, err := normalizeAttr(t, name, v)
			if err != nil {
				return Update{}, err
			}
			out.Set[name] = nv
		}
	}
	if len(u.Add) > 0 {
		out.Add = make(map[string]int64, len(u.Add))
		for name, n := range u.Add {
			if err := claim(name); err != nil {
				return Update{}, err
			}
			if isIndexKeyAttr(t, name) {
				return Update{}, invalidf("cannot Add to index key attribute %q", name)
			}
			out.Add[name] = n
		}
	}
	for _, name := range u.Remove {
		if err := claim(name); err != nil {
			return Update{}, err
		}
	}
	if u.ExpiresAt != nil {
		exp, err := normalizeExpiry(*u.ExpiresAt)
		if err != nil {
			return Update{}, err
		}
		out.ExpiresAt = &exp
	}
	return out, nil
}

// CheckQuery reports whether q is a valid query of t. SKPrefix cannot be
// combined with SKFrom/SKTo: a DynamoDB key condition holds only one of them.
func CheckQuery(t Table, q Query) error {
	if err := CheckTable(t); err != nil {
		return err
	}
	if q.Index != "" && !slices.Contains(Indexes[t], q.Index) {
		return invalidf("table %s has no index %q", t, q.Index)
	}
	if q.PK == "" {
		return invalidf("query needs a partition key")
	}
	if q.SKPrefix != "" && (q.SKFrom != "" || q.SKTo != "") {
		return invalidf("SKPrefix cannot be combined with SKFrom/SKTo")
	}
	if q.Limit < 0 {
		return invalidf("negative limit %d", q.Limit)
	}
	return nil
}

// NormalizeTx checks a transaction and returns its ops normalized by
// NormalizeOp. Like DynamoDB it refuses more than MaxTxOps ops, two ops on
// the same item, and an update that changes nothing (DynamoDB requires an
// update expression inside a transaction; TxCheck expresses a pure check).
func NormalizeTx(ops []TxOp) ([]TxOp, error) {
	if len(ops) > MaxTxOps {
		return nil, invalidf("transaction of %d ops exceeds %d", len(ops), MaxTxOps)
	}
	type target struct {
		t Table
		k Key
	}
	seen := map[target]bool{}
	out := make([]TxOp, len(ops))
	for i, op := range ops {
		n, err := NormalizeOp(op)
		if err != nil {
			return nil, fmt.Errorf("transaction op %d: %w", i, err)
		}
		if n.Kind == TxKindUpdate && n.Update.empty() {
			return nil, invalidf("transaction op %d: update changes nothing", i)
		}
		tg := target{n.Table, n.TargetKey()}
		if seen[tg] {
			return nil, invalidf("transaction op %d: item %s %q/%q is already in the transaction", i, n.Table, tg.k.PK, tg.k.SK)
		}
		seen[tg] = true
		out[i] = n
	}
	return out, nil
}

// NormalizeOp checks one write, as a single call or part of a
// transaction, and returns it with normalized item, update and condition.
func NormalizeOp(op TxOp) (TxOp, error) {
	if err := CheckTable(op.Table); err != nil {
		return TxOp{}, err
	}
	cond, err := NormalizeCondition(op.Cond)
	if err != nil {
		return TxOp{}, err
	}
	op.Cond = cond
	switch op.Kind {
	case TxKindPut:
		op.Item, err = NormalizeItem(op.Table, op.Item)
		return op, err
	case TxKindUpdate:
		if err := CheckKey(op.Key); err != nil {
			return TxOp{}, err
		}
		op.Update, err = NormalizeUpdate(op.Table, op.Update)
		return op, err
	case TxKindDelete:
		return op, CheckKey(op.Key)
	case TxKindCheck:
		if op.Cond == nil {
			return TxOp{}, invalidf("TxCheck needs a condition")
		}
		return op, CheckKey(op.Key)
	default:
		return TxOp{}, invalidf("unknown TxKind %d", op.Kind)
	}
}

func (u Update) empty() bool {
	return len(u.Set) == 0 && len(u.Add) == 0 && len(u.Remove) == 0 && u.ExpiresAt == nil
}

// TargetKey is the key of the item the op writes or checks.
func (op TxOp) TargetKey() Key {
	if op.Kind == TxKindPut {
		return op.Item.Key
	}
	return op.Key
}

// ItemSize approximates the size DynamoDB charges for it: names plus
// values, numbers at one byte per two significant digits plus one.
func ItemSize(it Item) int {
	size := len("PK") + len(it.PK) + len("SK") + len(it.SK)
	if !it.ExpiresAt.IsZero() {
		size += len(ExpiresAtAttr) + numberSize(strconv.FormatInt(it.ExpiresAt.Unix(), 10))
	}
	for name, v := range it.Attrs {
		size += len(name)
		switch x := v.(type) {
		case string:
			size += len(x)
		case []byte:
			size += len(x)
		case bool:
			size++
		case int64:
			size += numberSize(strconv.FormatInt(x, 10))
		case float64:
			size += numberSize(strconv.FormatFloat(x, 'e', -1, 64))
		}
	}
	return size
}

func numberSize(text string) int {
	digits := 0
	for _, r := range text {
		if r == 'e' {
			break
		}
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	return (digits+1)/2 + 1
}

// CheckItemSize reports an item larger than MaxItemSize.
func CheckItemSize(it Item) error {
	if n := ItemSize(it); n > MaxItemSize {
		return invalidf("item %q/%q of %d bytes exceeds %d", it.PK, it.SK, n, MaxItemSize)
	}
	return nil
}
