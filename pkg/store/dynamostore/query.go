package dynamostore

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"musiccatalog/pkg/store"
)

// Query implements store.Store. DynamoDB counts expired items against a
// page's Limit and may hand back a LastEvaluatedKey with nothing after
// it, so Query reads one live item past the page before it returns a
// cursor: the last page always has an empty one. The cursor is the key of
// the page's last item, as base64 of the JSON of its key attributes.
func (s *Store) Query(ctx context.Context, t store.Table, q store.Query) (store.Page, error) {
	name, err := s.table(t)
	if err != nil {
		return store.Page{}, err
	}
	if err := store.CheckQuery(t, q); err != nil {
		return store.Page{}, err
	}
	keyAttrs := []string{attrPK, attrSK}
	pkAttr, skAttr := attrPK, attrSK
	if q.Index != "" {
		pkAttr, skAttr = q.Index+"PK", q.Index+"SK"
		keyAttrs = append(keyAttrs, pkAttr, skAttr)
	}
	start, err := decodeCursor(q.Cursor, keyAttrs, pkAttr, q.PK)
	if err != nil {
		return store.Page{}, err
	}
	if q.SKFrom != "" && q.SKTo != "" && q.SKFrom > q.SKTo {
		return store.Page{}, nil // DynamoDB refuses such a BETWEEN
	}

	e := newExpr()
	cond := e.name(pkAttr) + " = " + e.value(str(q.PK))
	switch {
	case q.SKPrefix != "":
		cond += " AND begins_with(" + e.name(skAttr) + ", " + e.value(str(q.SKPrefix)) + ")"
	case q.SKFrom != "" && q.SKTo != "":
		cond += " AND " + e.name(skAttr) + " BETWEEN " + e.value(str(q.SKFrom)) + " AND " + e.value(str(q.SKTo))
	case q.SKFrom != "":
		cond += " AND " + e.name(skAttr) + " >= " + e.value(str(q.SKFrom))
	case q.SKTo != "":
		cond += " AND " + e.name(skAttr) + " <= " + e.value(str(q.SKTo))
	}
	in := &dynamodb.QueryInput{
		TableName:                 &name,
		KeyConditionExpression:    &cond,
		ExpressionAttributeNames:  e.Names(),
		ExpressionAttributeValues: e.Values(),
		ScanIndexForward:          aws.Bool(!q.Descending),
		// Index reads are eventually consistent in DynamoDB; table reads
		// are made consistent like every other read of the port.
		ConsistentRead: aws.Bool(q.Index == ""),
	}
	if q.Index != "" {
		in.IndexName = &q.Index
	}

	now := s.now().Unix()
	var page store.Page
	var last map[string]types.AttributeValue
	for {
		in.ExclusiveStartKey = start
		if q.Limit > 0 {
			in.Limit = aws.Int32(int32(min(q.Limit-len(page.Items)+1, math.MaxInt32)))
		}
		out, err := s.client.Query(ctx, in)
		if err != nil {
			return store.Page{}, wrap("query "+string(t), err)
		}
		for _, raw := range out.Items {
			if expiredAt(raw, now) {
				continue
			}
			if q.Limit > 0 && len(page.Items) == q.Limit {
				page.Cursor, err = encodeCursor(last, keyAttrs)
				return page, err
			}
			it, err := decodeItem(raw)
			if err != nil {
				return store.Page{}, fmt.Errorf("dynamostore: query %s: %w", t, err)
			}
			page.Items = append(page.Items, it)
			last = raw
		}
		if len(out.LastEvaluatedKey) == 0 {
			return page, nil
		}
		start = out.LastEvaluatedKey
	}
}

func encodeCursor(item map[string]types.AttributeValue, keyAttrs []string) (string, error) {
	key := make(map[string]string, len(keyAttrs))
	for _, a := range keyAttrs {
		s, ok := item[a].(*types.AttributeValueMemberS)
		if !ok {
			return "", fmt.Errorf("dynamostore: query result lacks key attribute %s", a)
		}
		key[a] = s.Value
	}
	b, err := json.Marshal(key)
	return base64.RawURLEncoding.EncodeToString(b), err
}

// decodeCursor returns the ExclusiveStartKey of a cursor, refusing one
// that was not made by a query of the same partition.
func decodeCursor(cursor string, keyAttrs []string, pkAttr, pk string) (map[string]types.AttributeValue, error) {
	if cursor == "" {
		return nil, nil
	}
	bad := fmt.Errorf("%w: cursor does not belong to this query", store.ErrInvalid)
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return nil, bad
	}
	var key map[string]string
	if err := json.Unmarshal(b, &key); err != nil || len(key) != len(keyAttrs) || key[pkAttr] != pk {
		return nil, bad
	}
	start := make(map[string]types.AttributeValue, len(key))
	for _, a := range keyAttrs {
		v, ok := key[a]
		if !ok {
			return nil, bad
		}
		start[a] = str(v)
	}
	return start, nil
}
