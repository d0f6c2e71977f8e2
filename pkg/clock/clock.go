package clock

import (
	"sync"
	"time"
)

// Clock tells the time.
type Clock interface{ Now() time.Time }

// Real is the wall clock (UTC).
type Real struct{}

func (Real) Now() time.Time { return time.Now().UTC() }

// Manual is a clock tests move by hand. The zero value starts at the zero time.
type Manual struct {
	mu  sync.Mutex
	now time.Time
}

// NewManual returns a Manual clock set to t.
func NewManual(t time.Time) *Manual { return &Manual{now: t.UTC()} }

func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Advance moves the clock forward by d.
func (m *Manual) Advance(d time.Duration) {
	m.mu.Lock()
	m.now = m.now.Add(d)
	m.mu.Unlock()
}
