package dynamostore

import (
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestDecodeNumbers(t *testing.T) {
	cases := map[string]any{
		"2":                     int64(2),
		"-9223372036854775808":  int64(-9223372036854775808),
		"9223372036854775808":   9223372036854775808.0,
		"100000000000000000000": 1e20,
		"2.5":                   2.5,
		"0.00000015":            1.5e-7,
		"3.0":                   int64(3),
	}
	for text, want := range cases {
		got, err := decodeValue(&types.AttributeValueMemberN{Value: text})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("decode %s = %#v, %v; want %#v", text, got, err, want)
		}
	}
	if _, err := decodeValue(&types.AttributeValueMemberL{}); err == nil {
		t.Error("a list attribute decoded without error")
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, v := range []any{"x", int64(-1), 0.1, 1e-100, 1e125, true, []byte{0, 255}} {
		got, err := decodeValue(encodeValue(v))
		if err != nil || !reflect.DeepEqual(got, v) {
			t.Errorf("round trip of %#v = %#v, %v", v, got, err)
		}
	}
}
