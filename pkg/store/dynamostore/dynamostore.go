package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"musiccatalog/pkg/store"
)

var _ store.Store = (*Store)(nil)

// maxAttempts bounds the retries of a write that met an expired item or a
// conflicting transaction.
const maxAttempts = 5

// Store is store.Store on DynamoDB. It is safe for concurrent use.
type Store struct {
	client *dynamodb.Client
	tables map[store.Table]string
	now    func() time.Time
}

// Option configures New.
type Option func(*Store)

// WithClock replaces time.Now as the source of the current time, which
// decides whether an item has expired.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// New returns a store on the physical tables tableNames maps each logical
// table to (see TableNames).
func New(client *dynamodb.Client, tableNames map[store.Table]string, opts ...Option) *Store {
	s := &Store{client: client, tables: tableNames, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

func (s *Store) table(t store.Table) (string, error) {
	if err := store.CheckTable(t); err != nil {
		return "", err
	}
	name, ok := s.tables[t]
	if !ok {
		return "", fmt.Errorf("dynamostore: no physical table configured for %s", t)
	}
	return name, nil
}

// fail wraps an error of a request on item k; see wrap.
func fail(op string, t store.Table, k store.Key, err error) error {
	return wrap(fmt.Sprintf("%s %s %q/%q", op, t, k.PK, k.SK), err)
}

// wrap says what failed and maps DynamoDB's refusals to the port's
// sentinels: a failed condition and a request DynamoDB rejects as invalid.
func wrap(what string, err error) error {
	var ccf *types.ConditionalCheckFailedException
	var api smithy.APIError
	switch {
	case errors.As(err, &ccf):
		return fmt.Errorf("dynamostore: %s: %w", what, store.ErrConditionFailed)
	case errors.As(err, &api) && api.ErrorCode() == "ValidationException":
		return fmt.Errorf("dynamostore: %s: %w: %s", what, store.ErrInvalid, api.ErrorMessage())
	}
	return fmt.Errorf("dynamostore: %s: %w", what, err)
}

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, t store.Table, k store.Key) (store.Item, error) {
	name, err := s.table(t)
	if err != nil {
		return store.Item{}, err
	}
	if err := store.CheckKey(k); err != nil {
		return store.Item{}, err
	}
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      &name,
		Key:            encodeKey(k),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return store.Item{}, fail("get", t, k, err)
	}
	if out.Item == nil || expiredAt(out.Item, s.now().Unix()) {
		return store.Item{}, fmt.Errorf("dynamostore: get %s %q/%q: %w", t, k.PK, k.SK, store.ErrNotFound)
	}
	it, err := decodeItem(out.Item)
	if err != nil {
		return store.Item{}, fmt.Errorf("dynamostore: get %s %q/%q: %w", t, k.PK, k.SK, err)
	}
	return it, nil
}

// Put implements store.Store.
func (s *Store) Put(ctx context.Context, t store.Table, it store.Item, cond store.Condition) error {
	op, name, err := s.prepare(store.TxPut(t, it, cond))
	if err != nil {
		return err
	}
	e := newExpr()
	in := &dynamodb.PutItemInput{
		TableName:           &name,
		Item:                encodeItem(op.Item),
		ConditionExpression: optional(e.condition(op.Cond, s.now().Unix())),
	}
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.Names(), e.Values()
	if err := retryConflicts(ctx, func() error { _, err := s.client.PutItem(ctx, in); return err }); err != nil {
		return fail("put", t, op.Item.Key, err)
	}
	return nil
}

// Delete implements store.Store.
func (s *Store) Delete(ctx context.Context, t store.Table, k store.Key, cond store.Condition) error {
	op, name, err := s.prepare(store.TxDelete(t, k, cond))
	if err != nil {
		return err
	}
	e := newExpr()
	in := &dynamodb.DeleteItemInput{
		TableName:           &name,
		Key:                 encodeKey(k),
		ConditionExpression: optional(e.condition(op.Cond, s.now().Unix())),
	}
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.Names(), e.Values()
	if err := retryConflicts(ctx, func() error { _, err := s.client.DeleteItem(ctx, in); return err }); err != nil {
		return fail("delete", t, k, err)
	}
	return nil
}

// retryConflicts makes the single-item write call again, after a pause,
// while DynamoDB refuses it because a transaction is under way on its item
// (TransactionConflictException: nothing was written; bbolt serializes
// writes and never refuses), and answers store.ErrContention when the
// refusals outlast maxAttempts, as Transact does for a transaction.
func retryConflicts(ctx context.Context, call func() error) error {
	for attempt := 1; ; attempt++ {
		err := call()
		var tce *types.TransactionConflictException
		if !errors.As(err, &tce) {
			return err
		}
		if attempt == maxAttempts {
			return fmt.Errorf("still meeting transactions after %d attempts: %w: %w", attempt, store.ErrContention, err)
		}
		if err := backoff(ctx, attempt); err != nil {
			return err
		}
	}
}

// Update implements store.Store. The update is guarded against expired
// items (see guardedCondition); when the guard alone failed, the expired
// item is deleted and the update retried on the now absent item.
func (s *Store) Update(ctx context.Context, t store.Table, k store.Key, u store.Update, cond store.Condition) (store.Item, error) {
	op, name, err := s.prepare(store.TxUpdate(t, k, u, cond))
	if err != nil {
		return store.Item{}, err
	}
	for attempt := 1; ; attempt++ {
		now := s.now().Unix()
		e := newExpr()
		in := &dynamodb.UpdateItemInput{
			TableName:                           &name,
			Key:                                 encodeKey(k),
			UpdateExpression:                    optional(e.update(op.Update)),
			ConditionExpression:                 aws.String(e.guardedCondition(op.Cond, now)),
			ReturnValues:                        types.ReturnValueAllNew,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.Names(), e.Values()
		var out *dynamodb.UpdateItemOutput
		err := retryConflicts(ctx, func() (err error) { out, err = s.client.UpdateItem(ctx, in); return err })
		if err == nil {
			it, err := decodeItem(out.Attributes)
			if err != nil {
				return store.Item{}, fmt.Errorf("dynamostore: update %s %q/%q: %w", t, k.PK, k.SK, err)
			}
			return it, nil
		}
		var ccf *types.ConditionalCheckFailedException
		if !errors.As(err, &ccf) {
			return store.Item{}, fail("update", t, k, err)
		}
		retry, err := s.clearExpired(ctx, name, k, ccf.Item, op.Cond, now)
		if err != nil {
			return store.Item{}, fail("update", t, k, err)
		}
		if !retry {
			return store.Item{}, fail("update", t, k, ccf)
		}
		if attempt == maxAttempts {
			return store.Item{}, fmt.Errorf("dynamostore: update %s %q/%q: still meeting expired items after %d attempts", t, k.PK, k.SK, attempt)
		}
	}
}

// clearExpired decides what a failed guarded update means, given the item
// it failed on (nil when absent). When that item had expired and cond
// holds on an absent item, only the guard failed: it deletes the expired
// item (unless it was rewritten meanwhile) and reports that the update
// should be retried. Otherwise cond itself failed.
func (s *Store) clearExpired(ctx context.Context, table string, k store.Key, old map[string]types.AttributeValue, cond store.Condition, now int64) (bool, error) {
	if !expiredAt(old, now) {
		return false, nil
	}
	if holds, _ := store.Eval(cond, nil); !holds {
		return false, nil
	}
	e := newExpr()
	in := &dynamodb.DeleteItemInput{
		TableName:           &table,
		Key:                 encodeKey(k),
		ConditionExpression: aws.String(e.name(attrExp) + " <= " + e.nowValue(now)),
	}
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.Names(), e.Values()
	_, err := s.client.DeleteItem(ctx, in)
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return false, err
	}
	return true, nil
}

// prepare normalizes a single write and resolves its table.
func (s *Store) prepare(op store.TxOp) (store.TxOp, string, error) {
	name, err := s.table(op.Table)
	if err != nil {
		return store.TxOp{}, "", err
	}
	op, err = store.NormalizeOp(op)
	return op, name, err
}

// Transact implements store.Store with TransactWriteItems. Like Update it
// retries after deleting expired items that only an update's guard
// failed on, and after transaction conflicts.
func (s *Store) Transact(ctx context.Context, ops []store.TxOp) error {
	ops, err := store.NormalizeTx(ops)
	if err != nil || len(ops) == 0 {
		return err
	}
	names := make([]string, len(ops))
	for i, op := range ops {
		if names[i], err = s.table(op.Table); err != nil {
			return err
		}
	}
	for attempt := 1; ; attempt++ {
		now := s.now().Unix()
		items := make([]types.TransactWriteItem, len(ops))
		for i, op := range ops {
			items[i] = txItem(op, names[i], now)
		}
		_, err := s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if err == nil {
			return nil
		}
		var tce *types.TransactionCanceledException
		if !errors.As(err, &tce) {
			return wrap("transaction", err)
		}
		retry, err := s.resolveCancel(ctx, ops, names, tce, now)
		if err != nil {
			return fmt.Errorf("dynamostore: transaction: %w", err)
		}
		if !retry {
			return fmt.Errorf("dynamostore: transaction cancelled: %w", tce)
		}
		if attempt == maxAttempts {
			return fmt.Errorf("dynamostore: transaction still cancelled after %d attempts: %w: %w", attempt, store.ErrContention, tce)
		}
		if err := backoff(ctx, attempt); err != nil {
			return err
		}
	}
}

func txItem(op store.TxOp, table string, now int64) types.TransactWriteItem {
	e := newExpr()
	k := encodeKey(op.TargetKey())
	switch op.Kind {
	case store.TxKindPut:
		return types.TransactWriteItem{Put: &types.Put{
			TableName: &table, Item: encodeItem(op.Item),
			ConditionExpression:       optional(e.condition(op.Cond, now)),
			ExpressionAttributeNames:  e.Names(),
			ExpressionAttributeValues: e.Values(),
		}}
	case store.TxKindUpdate:
		update := e.update(op.Update)
		cond := e.guardedCondition(op.Cond, now)
		return types.TransactWriteItem{Update: &types.Update{
			TableName: &table, Key: k,
			UpdateExpression:                    &update,
			ConditionExpression:                 &cond,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
			ExpressionAttributeNames:            e.Names(),
			ExpressionAttributeValues:           e.Values(),
		}}
	case store.TxKindDelete:
		return types.TransactWriteItem{Delete: &types.Delete{
			TableName: &table, Key: k,
			ConditionExpression:       optional(e.condition(op.Cond, now)),
			ExpressionAttributeNames:  e.Names(),
			ExpressionAttributeValues: e.Values(),
		}}
	default:
		cond := e.condition(op.Cond, now)
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: &table, Key: k,
			ConditionExpression:       &cond,
			ExpressionAttributeNames:  e.Names(),
			ExpressionAttributeValues: e.Values(),
		}}
	}
}

// resolveCancel reads the per-op reasons of a cancelled transaction: a
// failed condition fails the transaction unless only an update's guard
// failed on an expired item, which is then deleted; conflicts with other
// transactions are retried.
func (s *Store) resolveCancel(ctx context.Context, ops []store.TxOp, names []string, tce *types.TransactionCanceledException, now int64) (bool, error) {
	if len(tce.CancellationReasons) != len(ops) {
		return false, tce
	}
	var stale []int
	retry := false
	for i, r := range tce.CancellationReasons {
		op := ops[i]
		k := op.TargetKey()
		switch code := aws.ToString(r.Code); code {
		case "", "None":
		case "ConditionalCheckFailed":
			if op.Kind == store.TxKindUpdate && expiredAt(r.Item, now) {
				if holds, _ := store.Eval(op.Cond, nil); holds {
					stale = append(stale, i)
					continue
				}
			}
			return false, fmt.Errorf("op %d (%s %q/%q): %w", i, op.Table, k.PK, k.SK, store.ErrConditionFailed)
		case "TransactionConflict":
			retry = true
		case "ValidationError":
			return false, fmt.Errorf("op %d (%s %q/%q): %w: %s", i, op.Table, k.PK, k.SK, store.ErrInvalid, aws.ToString(r.Message))
		default:
			return false, fmt.Errorf("op %d (%s %q/%q): %s: %s", i, op.Table, k.PK, k.SK, code, aws.ToString(r.Message))
		}
	}
	for _, i := range stale {
		if _, err := s.clearExpired(ctx, names[i], ops[i].TargetKey(), tce.CancellationReasons[i].Item, ops[i].Cond, now); err != nil {
			return false, err
		}
	}
	return retry || len(stale) > 0, nil
}

// backoff waits a little longer after each conflicted attempt, with
// jitter so that competing writers drift apart.
func backoff(ctx context.Context, attempt int) error {
	d := time.Duration(attempt) * (10*time.Millisecond + rand.N(20*time.Millisecond))
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
