package store

import "time"

// Typed readers for attribute values; a missing or differently typed
// attribute reads as the zero value, which repositories treat as "unset".

// Str returns the string attribute a.
func (it Item) Str(a string) string { s, _ := it.Attrs[a].(string); return s }

// Int returns the integer attribute a.
func (it Item) Int(a string) int64 {
	switch v := it.Attrs[a].(type) {
	case int64:
		return v
	case int:
		return int64(v)
	case float64:
		return int64(v)
	}
	return 0
}

// Float returns the numeric attribute a as float64.
func (it Item) Float(a string) float64 {
	switch v := it.Attrs[a].(type) {
	case float64:
		return v
	case int64:
		return float64(v)
	case int:
		return float64(v)
	}
	return 0
}

// Bool returns the boolean attribute a.
func (it Item) Bool(a string) bool { b, _ := it.Attrs[a].(bool); return b }

// Bytes returns the binary attribute a.
func (it Item) Bytes(a string) []byte { b, _ := it.Attrs[a].([]byte); return b }

// Time returns the attribute a stored as unix nanoseconds (zero when unset).
func (it Item) Time(a string) time.Time {
	n := it.Int(a)
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// UnixNano is how repositories store instants: sortable, exact, an int64.
func UnixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
