package dynamostore

import (
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"musiccatalog/pkg/store"
)

const (
	attrPK  = "PK"
	attrSK  = "SK"
	attrExp = store.ExpiresAtAttr
)

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func num(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// encodeValue encodes a value normalized by store.NormalizeValue.
func encodeValue(v any) types.AttributeValue {
	switch x := v.(type) {
	case string:
		return str(x)
	case int64:
		return num(x)
	case float64:
		return &types.AttributeValueMemberN{Value: strconv.FormatFloat(x, 'g', -1, 64)}
	case bool:
		return &types.AttributeValueMemberBOOL{Value: x}
	case []byte:
		return &types.AttributeValueMemberB{Value: x}
	}
	panic(fmt.Sprintf("dynamostore: unnormalized value %T", v))
}

func encodeKey(k store.Key) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: str(k.PK), attrSK: str(k.SK)}
}

func encodeItem(it store.Item) map[string]types.AttributeValue {
	m := encodeKey(it.Key)
	for name, v := range it.Attrs {
		m[name] = encodeValue(v)
	}
	if !it.ExpiresAt.IsZero() {
		m[attrExp] = num(it.ExpiresAt.Unix())
	}
	return m
}

func decodeItem(m map[string]types.AttributeValue) (store.Item, error) {
	it := store.Item{Attrs: make(map[string]any, len(m))}
	for name, av := range m {
		v, err := decodeValue(av)
		if err != nil {
			return store.Item{}, fmt.Errorf("attribute %q: %w", name, err)
		}
		switch name {
		case attrPK, attrSK:
			s, ok := v.(string)
			if !ok {
				return store.Item{}, fmt.Errorf("key attribute %s is %T, not a string", name, v)
			}
			if name == attrPK {
				it.PK = s
			} else {
				it.SK = s
			}
		case attrExp:
			sec, ok := v.(int64)
			if !ok {
				return store.Item{}, fmt.Errorf("%s is %T, not whole seconds", attrExp, v)
			}
			it.ExpiresAt = time.Unix(sec, 0).UTC()
		default:
			it.Attrs[name] = v
		}
	}
	return it, nil
}

// decodeValue returns numbers as int64 when their text is integral, else
// float64, matching store.NormalizeValue.
func decodeValue(av types.AttributeValue) (any, error) {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return x.Value, nil
	case *types.AttributeValueMemberN:
		if n, err := strconv.ParseInt(x.Value, 10, 64); err == nil {
			return n, nil
		}
		f, err := strconv.ParseFloat(x.Value, 64)
		if err != nil {
			return nil, fmt.Errorf("number %q: %w", x.Value, err)
		}
		return store.NormalizeValue(f)
	case *types.AttributeValueMemberBOOL:
		return x.Value, nil
	case *types.AttributeValueMemberB:
		return store.NormalizeValue(x.Value)
	}
	return nil, fmt.Errorf("unsupported attribute type %T", av)
}

// expiredAt reports whether a raw item has expired at now (unix seconds);
// a nil item has not.
func expiredAt(m map[string]types.AttributeValue, now int64) bool {
	n, ok := m[attrExp].(*types.AttributeValueMemberN)
	if !ok {
		return false
	}
	sec, err := strconv.ParseInt(n.Value, 10, 64)
	return err == nil && sec <= now
}
