package blobtest

import (
	"testing"

	"musiccatalog/pkg/blob"
)

// testWriter streams objects through blob.NewWriter (the store's own
// Creator when it has one): small (one part), larger than two 8 MiB parts
// written in odd-sized chunks, and an aborted one, which leaves no object
// and keeps what was stored under the key before.
func testWriter(t *testing.T, h Harness, s blob.Store) {
	for _, c := range []struct {
		key  string
		size int
	}{{"w/small", 1000}, {"w/empty", 0}, {"w/large", 17<<20 + 3}} {
		data := randomBytes(uint64(c.size), c.size)
		w, err := blob.NewWriter(ctx(t), s, c.key, "application/zip")
		if err != nil {
			t.Fatal(err)
		}
		for rest, step := data, 1; len(rest) > 0; step = step*7 + 1 {
			n := min(len(rest), step%(3<<20)+1)
			if _, err := w.Write(rest[:n]); err != nil {
				t.Fatalf("%s: write: %v", c.key, err)
			}
			rest = rest[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatalf("%s: close: %v", c.key, err)
		}
		wantObject(t, s, c.key, data, "application/zip")
	}

	old := []byte("previous")
	put(t, s, "w/kept", old, "text/plain")
	for _, size := range []int{10, 9 << 20} {
		w, err := blob.NewWriter(ctx(t), s, "w/kept", "application/zip")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(randomBytes(3, size)); err != nil {
			t.Fatal(err)
		}
		w.Abort()
		if err := w.Close(); err == nil {
			t.Errorf("Close after Abort succeeded")
		}
		wantObject(t, s, "w/kept", old, "text/plain")
		w, err = blob.NewWriter(ctx(t), s, "w/gone", "application/zip")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(randomBytes(4, size)); err != nil {
			t.Fatal(err)
		}
		w.Abort()
		wantMissing(t, s, "w/gone")
	}
	if _, err := blob.NewWriter(ctx(t), s, "/bad", "application/zip"); err == nil {
		t.Error("NewWriter accepted an invalid key")
	}
}
