package ingest

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/catalog/catalogtest"
)

// TestLedgerRecordsAndForgets: the ledger names the newest manifest of
// each asset, forgets assets the catalog no longer holds and manifests no
// asset names; a corrupt ledger is an error that says how to recover.
func TestLedgerRecordsAndForgets(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := Source{Key: "m/a.jsonl", Modified: t0}, Source{Key: "m/b.jsonl", Modified: t0.Add(time.Minute)}
	l := &ledger{Assets: map[string]int{}}
	l.record(a, []string{"x", "y"}, map[string]bool{"x": true, "y": true})
	l.record(b, []string{"y"}, map[string]bool{"x": true, "y": true})
	if by, ok := l.supersededBy("y", a); !ok || by != b {
		t.Fatalf("y: %v %v; want superseded by b", by, ok)
	}
	if _, ok := l.supersededBy("x", a); ok {
		t.Fatal("x: a set it last, a is not superseded")
	}
	if _, ok := l.supersededBy("y", b); ok {
		t.Fatal("b again: not superseded by itself")
	}
	// Same second: the key orders them.
	if _, ok := l.supersededBy("y", Source{Key: "m/c.jsonl", Modified: b.Modified}); ok {
		t.Fatal("c sorts after b in the same second")
	}
	l.record(a, nil, map[string]bool{"y": true}) // x removed by a replace
	if _, ok := l.Assets["x"]; ok || len(l.Manifests) != 1 || l.Manifests[0] != b {
		t.Fatalf("after x left the catalog: %+v", l)
	}
	bs := catalogtest.NewStore(t)
	if err := l.save(t.Context(), bs); err != nil {
		t.Fatal(err)
	}
	back, err := loadLedger(t.Context(), bs)
	if err != nil || len(back.Assets) != 1 || back.Manifests[back.Assets["y"]].Key != b.Key || !back.Manifests[0].Modified.Equal(b.Modified) {
		t.Fatalf("read back: %+v %v", back, err)
	}
	for _, bad := range []string{`{"manifests":[],"assets":{"y":0}}`, `not json`} {
		if err := bs.Put(t.Context(), LedgerKey, bytes.NewReader([]byte(bad)), int64(len(bad)), "application/json"); err != nil {
			t.Fatal(err)
		}
		if _, err := loadLedger(t.Context(), bs); err == nil || !strings.Contains(err.Error(), "corrupt") {
			t.Fatalf("%s: %v; want a corrupt ledger error", bad, err)
		}
	}
}
