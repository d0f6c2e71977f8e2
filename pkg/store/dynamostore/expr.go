package dynamostore

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"musiccatalog/pkg/store"
)

// expr accumulates the placeholders of one request's expressions. Every
// attribute name goes through a placeholder, so no name can collide with
// DynamoDB's reserved words.
type expr struct {
	names  map[string]string // placeholder → attribute name
	byName map[string]string // attribute name → placeholder
	values map[string]types.AttributeValue
	now    string // placeholder of the current time, once used
}

func newExpr() *expr {
	return &expr{names: map[string]string{}, byName: map[string]string{}, values: map[string]types.AttributeValue{}}
}

func (e *expr) name(n string) string {
	if p, ok := e.byName[n]; ok {
		return p
	}
	p := fmt.Sprintf("#n%d", len(e.byName))
	e.byName[n] = p
	e.names[p] = n
	return p
}

func (e *expr) value(av types.AttributeValue) string {
	p := fmt.Sprintf(":v%d", len(e.values))
	e.values[p] = av
	return p
}

func (e *expr) nowValue(now int64) string {
	if e.now == "" {
		e.now = e.value(num(now))
	}
	return e.now
}

// Names and Values are the maps a request carries; DynamoDB refuses empty ones.
func (e *expr) Names() map[string]string {
	if len(e.names) == 0 {
		return nil
	}
	return e.names
}

func (e *expr) Values() map[string]types.AttributeValue {
	if len(e.values) == 0 {
		return nil
	}
	return e.values
}

// plain translates a normalized condition as DynamoDB evaluates it on the
// stored item, expired or not.
func (e *expr) plain(c store.Condition) string {
	switch x := c.(type) {
	case store.CondExists:
		return "attribute_exists(" + e.name(attrPK) + ")"
	case store.CondNotExists:
		return "attribute_not_exists(" + e.name(attrPK) + ")"
	case store.CondAttrExists:
		return "attribute_exists(" + e.name(x.Attr) + ")"
	case store.CondAttrNotExists:
		return "attribute_not_exists(" + e.name(x.Attr) + ")"
	case store.CondEquals:
		return e.name(x.Attr) + " = " + e.value(encodeValue(x.Value))
	case store.CondLessThan:
		return e.name(x.Attr) + " < " + e.value(encodeValue(x.Value))
	case store.CondAnd:
		return e.join(" AND ", x)
	case store.CondOr:
		return e.join(" OR ", x)
	}
	panic(fmt.Sprintf("dynamostore: unnormalized condition %T", c))
}

func (e *expr) join(op string, cs []store.Condition) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = e.plain(c)
	}
	return "(" + strings.Join(parts, op) + ")"
}

// notExpired holds for absent items and live ones.
func (e *expr) notExpired(now int64) string {
	exp := e.name(attrExp)
	return fmt.Sprintf("(attribute_not_exists(%s) OR %s > %s)", exp, exp, e.nowValue(now))
}

// condition translates c so that an expired item counts as absent: on an
// absent item c has a fixed truth value, which an expired item must get
// too, whatever its stale attributes say. "" means no condition.
func (e *expr) condition(c store.Condition, now int64) string {
	if c == nil {
		return ""
	}
	if holds, _ := store.Eval(c, nil); holds {
		return fmt.Sprintf("(%s <= %s OR %s)", e.name(attrExp), e.nowValue(now), e.plain(c))
	}
	return fmt.Sprintf("(%s AND %s)", e.notExpired(now), e.plain(c))
}

// guardedCondition is the condition of an update: it also fails on an
// expired item, whose attributes the update must not build on; the caller
// then deletes that item and retries.
func (e *expr) guardedCondition(c store.Condition, now int64) string {
	guard := e.notExpired(now)
	if c == nil {
		return guard
	}
	return guard + " AND " + e.plain(c)
}

// update translates a normalized update; "" when it changes nothing.
func (e *expr) update(u store.Update) string {
	var set, add, remove []string
	for _, n := range slices.Sorted(maps.Keys(u.Set)) {
		set = append(set, e.name(n)+" = "+e.value(encodeValue(u.Set[n])))
	}
	for _, n := range slices.Sorted(maps.Keys(u.Add)) {
		add = append(add, e.name(n)+" "+e.value(num(u.Add[n])))
	}
	for _, n := range u.Remove {
		remove = append(remove, e.name(n))
	}
	if u.ExpiresAt != nil {
		if u.ExpiresAt.IsZero() {
			remove = append(remove, e.name(attrExp))
		} else {
			set = append(set, e.name(attrExp)+" = "+e.value(num(u.ExpiresAt.Unix())))
		}
	}
	var clauses []string
	for _, c := range []struct {
		verb  string
		parts []string
	}{{"SET", set}, {"ADD", add}, {"REMOVE", remove}} {
		if len(c.parts) > 0 {
			clauses = append(clauses, c.verb+" "+strings.Join(c.parts, ", "))
		}
	}
	return strings.Join(clauses, " ")
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
