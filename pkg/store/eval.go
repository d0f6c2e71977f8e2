package store

import (
	"bytes"
	"math/big"
	"strings"
)

// NormalizeCondition checks c and returns it with normalized values, so
// that adapters see only the value types of NormalizeValue. Conditions name
// attributes of Item.Attrs; the key and expiry are covered by Exists and
// NotExists. And and Or need at least one member.
func NormalizeCondition(c Condition) (Condition, error) {
	switch x := c.(type) {
	case nil:
		return nil, nil
	case CondExists, CondNotExists:
		return x, nil
	case CondAttrExists:
		return x, checkAttrName(x.Attr)
	case CondAttrNotExists:
		return x, checkAttrName(x.Attr)
	case CondEquals:
		v, err := normalizeOperand(x.Attr, x.Value)
		return CondEquals{x.Attr, v}, err
	case CondLessThan:
		v, err := normalizeOperand(x.Attr, x.Value)
		if _, isBool := v.(bool); isBool {
			return nil, invalidf("LessThan(%q) cannot compare booleans", x.Attr)
		}
		return CondLessThan{x.Attr, v}, err
	case CondAnd:
		cs, err := normalizeConditions("And", x)
		return CondAnd(cs), err
	case CondOr:
		cs, err := normalizeConditions("Or", x)
		return CondOr(cs), err
	default:
		return nil, invalidf("unknown condition %T", c)
	}
}

func normalizeOperand(attr string, v any) (any, error) {
	if err := checkAttrName(attr); err != nil {
		return nil, err
	}
	return NormalizeValue(v)
}

func normalizeConditions(op string, cs []Condition) ([]Condition, error) {
	if len(cs) == 0 {
		return nil, invalidf("%s needs at least one condition", op)
	}
	out := make([]Condition, len(cs))
	for i, c := range cs {
		if c == nil {
			return nil, invalidf("%s member %d is nil", op, i)
		}
		n, err := NormalizeCondition(c)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// Eval reports whether c holds for cur, the current item, or nil when the
// item is absent or expired. A nil c always holds.
func Eval(c Condition, cur *Item) (bool, error) {
	n, err := NormalizeCondition(c)
	if err != nil {
		return false, err
	}
	return eval(n, cur), nil
}

func eval(c Condition, cur *Item) bool {
	attr := func(name string) (any, bool) {
		if cur == nil {
			return nil, false
		}
		v, ok := cur.Attrs[name]
		if !ok {
			return nil, false
		}
		nv, err := NormalizeValue(v)
		return nv, err == nil
	}
	switch x := c.(type) {
	case nil:
		return true
	case CondExists:
		return cur != nil
	case CondNotExists:
		return cur == nil
	case CondAttrExists:
		_, ok := attr(x.Attr)
		return ok
	case CondAttrNotExists:
		_, ok := attr(x.Attr)
		return !ok
	case CondEquals:
		v, ok := attr(x.Attr)
		cmp, comparable := compareValues(v, x.Value)
		return ok && comparable && cmp == 0
	case CondLessThan:
		v, ok := attr(x.Attr)
		cmp, comparable := compareValues(v, x.Value)
		return ok && comparable && cmp < 0
	case CondAnd:
		for _, m := range x {
			if !eval(m, cur) {
				return false
			}
		}
		return true
	case CondOr:
		for _, m := range x {
			if eval(m, cur) {
				return true
			}
		}
		return false
	}
	return false
}

// compareValues orders two normalized values of the same family the way
// DynamoDB does: numbers numerically, strings and bytes bytewise, and
// booleans only for equality (NormalizeCondition keeps them out of
// LessThan). It reports false for values of different families.
func compareValues(a, b any) (int, bool) {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return strings.Compare(x, y), ok
	case []byte:
		y, ok := b.([]byte)
		return bytes.Compare(x, y), ok
	case bool:
		y, ok := b.(bool)
		if x == y {
			return 0, ok
		}
		return 1, ok
	case int64, float64:
		return compareNumbers(a, b)
	}
	return 0, false
}

func compareNumbers(a, b any) (int, bool) {
	if x, ok := a.(int64); ok {
		if y, ok := b.(int64); ok {
			switch {
			case x < y:
				return -1, true
			case x > y:
				return 1, true
			}
			return 0, true
		}
	}
	x, okA := bigNumber(a)
	y, okB := bigNumber(b)
	if !okA || !okB {
		return 0, false
	}
	return x.Cmp(y), true
}

// bigNumber is exact for both int64 and float64, so mixed comparisons
// never round.
func bigNumber(v any) (*big.Float, bool) {
	switch x := v.(type) {
	case int64:
		return new(big.Float).SetInt64(x), true
	case float64:
		return big.NewFloat(x), true
	}
	return nil, false
}
