package store

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestNormalizeValue(t *testing.T) {
	cases := []struct {
		in, want any
	}{
		{"s", "s"},
		{7, int64(7)},
		{int32(-7), int64(-7)},
		{int64(math.MaxInt64), int64(math.MaxInt64)},
		{2.0, int64(2)},
		{math.Copysign(0, -1), int64(0)},
		{2.5, 2.5},
		{-9223372036854775808.0, int64(math.MinInt64)},
		{9223372036854775808.0, 9223372036854775808.0}, // 2^63 does not fit int64
		{1e125, 1e125},
		{[]byte(nil), []byte{}},
		{true, true},
	}
	for _, c := range cases {
		got, err := NormalizeValue(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("NormalizeValue(%#v) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []any{nil, uint(1), float32(1), math.NaN(), math.Inf(-1), 1e126, 1e-131, []string{}} {
		if _, err := NormalizeValue(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("NormalizeValue(%#v): err = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestEvalComparesNumbersExactly(t *testing.T) {
	it := &Item{Attrs: map[string]any{
		"big":  int64(math.MaxInt64),
		"near": int64(1 << 53),
		"f":    0.1,
	}}
	cases := []struct {
		c    Condition
		want bool
	}{
		// float64(MaxInt64) rounds up to 2^63; exact comparison sees the gap.
		{LessThan("big", 9223372036854775808.0), true},
		{Equals("big", 9223372036854775808.0), false},
		{Equals("near", float64(1<<53)), true},
		{LessThan("near", float64(1<<53)+2), true},
		{LessThan("f", 0.1), false},
		{LessThan("f", 1), true},
		{Equals("f", 0.1), true},
	}
	for _, c := range cases {
		got, err := Eval(c.c, it)
		if err != nil || got != c.want {
			t.Errorf("Eval(%#v) = %v, %v; want %v", c.c, got, err, c.want)
		}
	}
}

func TestEvalRejectsInvalidConditionsEvenWhenShortCircuited(t *testing.T) {
	// Or stops at its first true member, but the bad second one must still
	// be reported: DynamoDB rejects the whole expression.
	c := Or(Exists(), LessThan("a", false))
	if _, err := Eval(c, &Item{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
}

func TestNormalizeUpdate(t *testing.T) {
	exp := time.Date(2030, 1, 1, 0, 0, 0, 999, time.UTC)
	u, err := NormalizeUpdate(Playlists, Update{
		Set:       map[string]any{"GSI1PK": "x", "n": 3},
		Add:       map[string]int64{"c": 1},
		Remove:    []string{"old"},
		ExpiresAt: &exp,
	})
	if err != nil {
		t.Fatal(err)
	}
	if u.Set["n"] != int64(3) || !u.ExpiresAt.Equal(exp.Truncate(time.Second)) {
		t.Errorf("normalized update = %+v", u)
	}
	// Quotas has no index, so GSI1PK is an ordinary attribute there.
	if _, err := NormalizeUpdate(Quotas, Update{Add: map[string]int64{"GSI1PK": 1}}); err != nil {
		t.Errorf("Add to GSI1PK on Quotas: %v", err)
	}
	if _, err := NormalizeUpdate(Playlists, Update{Add: map[string]int64{"GSI1PK": 1}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Add to GSI1PK on Playlists: err = %v, want ErrInvalid", err)
	}
}

func TestItemSize(t *testing.T) {
	it := Item{Key: Key{PK: "pk", SK: "sk"}, Attrs: map[string]any{
		"s": "abc", "b": []byte{1, 2}, "t": true, "n": int64(12345), "f": 1.5,
	}}
	// PK+pk, SK+sk = 8; s+abc = 4; b+2 bytes = 3; t+1 = 2;
	// n + 5 digits = 1 + 4; f + 2 digits = 1 + 2.
	if got, want := ItemSize(it), 8+4+3+2+5+3; got != want {
		t.Errorf("ItemSize = %d, want %d", got, want)
	}
	it.Attrs["big"] = strings.Repeat("x", MaxItemSize)
	if err := CheckItemSize(it); !errors.Is(err, ErrInvalid) {
		t.Errorf("CheckItemSize of an oversized item: %v", err)
	}
}
