package blobtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/blob"
)

func testPutGetHead(t *testing.T, h Harness, s blob.Store) {
	for i, key := range []string{"a", "dir/sub/track.mp3", "a..b/c...d", oddKey} {
		data := randomBytes(uint64(i), 1000+i)
		put(t, s, key, data, "audio/mpeg")
		wantObject(t, s, key, data, "audio/mpeg")
	}
	// Parameters are kept as given.
	put(t, s, "text", []byte("hello"), "text/plain; charset=utf-8")
	wantObject(t, s, "text", []byte("hello"), "text/plain; charset=utf-8")
	// Larger than any copy buffer on the way.
	big := randomBytes(99, 3<<20+17)
	put(t, s, "big", big, "application/octet-stream")
	wantObject(t, s, "big", big, "application/octet-stream")
}

func testPutUnknownSize(t *testing.T, h Harness, s blob.Store) {
	data := randomBytes(1, 70_000)
	if err := s.Put(ctx(t), "k", hiddenLength{bytes.NewReader(data)}, -1, "video/mp4"); err != nil {
		t.Fatalf("Put with size -1: %v", err)
	}
	wantObject(t, s, "k", data, "video/mp4")
}

func testPutWrongSize(t *testing.T, h Harness, s blob.Store) {
	old := []byte("original")
	put(t, s, "kept", old, "text/plain")
	for _, c := range []struct {
		name string
		data []byte
		size int64
	}{
		{"shorter", []byte("12345"), 10},
		{"longer", []byte("123456789012"), 10},
	} {
		for _, key := range []string{"kept", "fresh"} {
			err := s.Put(ctx(t), key, hiddenLength{bytes.NewReader(c.data)}, c.size, "text/plain")
			if !errors.Is(err, blob.ErrInvalid) {
				t.Fatalf("Put(%q) of a body %s than its size: %v, want ErrInvalid", key, c.name, err)
			}
		}
		wantObject(t, s, "kept", old, "text/plain")
		wantMissing(t, s, "fresh")
	}
}

func testOverwrite(t *testing.T, h Harness, s blob.Store) {
	put(t, s, "k", []byte("first"), "text/plain")
	first := wantObject(t, s, "k", []byte("first"), "text/plain")
	put(t, s, "k", []byte("second, longer"), "application/json")
	second := wantObject(t, s, "k", []byte("second, longer"), "application/json")
	if first.ETag == second.ETag {
		t.Fatalf("ETag %q unchanged after new content", first.ETag)
	}
}

func testEmpty(t *testing.T, h Harness, s blob.Store) {
	put(t, s, "empty", nil, "text/plain")
	wantObject(t, s, "empty", []byte{}, "text/plain")
	if l, err := s.List(ctx(t), "empty"); err != nil || len(l) != 1 || l[0].Size != 0 {
		t.Fatalf("List(empty) = %+v, %v; want the one empty object", l, err)
	}
}

func testMissing(t *testing.T, h Harness, s blob.Store) {
	if _, _, err := s.Get(ctx(t), "no/such"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Get of a missing key: %v, want ErrNotFound", err)
	}
	wantMissing(t, s, "no/such")
	if err := s.Delete(ctx(t), "no/such"); err != nil {
		t.Fatalf("Delete of a missing key: %v", err)
	}
	put(t, s, "dir/k", []byte("x"), "text/plain")
	put(t, s, "dir/other", []byte("y"), "text/plain")
	for range 2 {
		if err := s.Delete(ctx(t), "dir/k"); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		wantMissing(t, s, "dir/k")
	}
	wantObject(t, s, "dir/other", []byte("y"), "text/plain")
	if err := s.Delete(ctx(t), "dir/other"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if l, err := s.List(ctx(t), ""); err != nil || len(l) != 0 {
		t.Fatalf("List after deleting everything = %+v, %v", l, err)
	}
	// The key is usable again after its directory went away.
	put(t, s, "dir/k", []byte("z"), "text/plain")
	wantObject(t, s, "dir/k", []byte("z"), "text/plain")
}

func testGetRange(t *testing.T, h Harness, s blob.Store) {
	data := randomBytes(7, 1000)
	put(t, s, "r", data, "audio/mpeg")
	put(t, s, "empty", nil, "text/plain")
	for _, c := range []struct {
		key            string
		offset, length int64
		want           []byte
	}{
		{"r", 100, 200, data[100:300]},
		{"r", 0, 1, data[:1]},
		{"r", 0, 1000, data},
		{"r", 999, 1, data[999:]},
		{"r", 900, 500, data[900:]},   // past the end: shorter
		{"r", 0, math.MaxInt64, data}, // the longest range there is
		{"r", 1000, 10, nil},          // at the end: empty
		{"r", 5000, 10, nil},          // past the end: empty
		{"empty", 0, 10, nil},         // S3 refuses any range of an empty object
	} {
		rc, err := s.GetRange(ctx(t), c.key, c.offset, c.length)
		if err != nil {
			t.Fatalf("GetRange(%q, %d, %d): %v", c.key, c.offset, c.length, err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, c.want) {
			t.Fatalf("GetRange(%q, %d, %d) read %d bytes %q, %v; want %d bytes %q", c.key, c.offset, c.length, len(got), clip(got), err, len(c.want), clip(c.want))
		}
	}
	if _, err := s.GetRange(ctx(t), "no/such", 0, 10); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("GetRange of a missing key: %v, want ErrNotFound", err)
	}
	for _, r := range [][2]int64{{-1, 10}, {0, 0}, {0, -1}, {1, math.MaxInt64}} {
		if _, err := s.GetRange(ctx(t), "r", r[0], r[1]); !errors.Is(err, blob.ErrInvalid) {
			t.Fatalf("GetRange(r, %d, %d): %v, want ErrInvalid", r[0], r[1], err)
		}
	}
}

func testList(t *testing.T, h Harness, s blob.Store) {
	keys := []string{"list/b", "list/a/2", "list/a/10", "list/a/1", "list/a-x", "list/ab", "list/a/deep/er/x", "other"}
	for i, k := range keys {
		put(t, s, k, bytes.Repeat([]byte{'x'}, i), "text/plain")
	}
	for _, c := range []struct {
		prefix string
		want   []string
	}{
		{"list/a/", []string{"list/a/1", "list/a/10", "list/a/2", "list/a/deep/er/x"}},
		{"list/a", []string{"list/a-x", "list/a/1", "list/a/10", "list/a/2", "list/a/deep/er/x", "list/ab"}},
		{"list/a/1", []string{"list/a/1", "list/a/10"}},
		{"", []string{"list/a-x", "list/a/1", "list/a/10", "list/a/2", "list/a/deep/er/x", "list/ab", "list/b", "other"}},
		{"li", []string{"list/a-x", "list/a/1", "list/a/10", "list/a/2", "list/a/deep/er/x", "list/ab", "list/b"}},
		{"nothing/", nil},
		{"list/a//", nil},
	} {
		list, err := s.List(ctx(t), c.prefix)
		if err != nil {
			t.Fatalf("List(%q): %v", c.prefix, err)
		}
		var got []string
		for _, a := range list {
			got = append(got, a.Key)
			want := head(t, s, a.Key)
			// ContentType stays empty everywhere: S3 listings lack it, and
			// code tried locally must not come to rely on it.
			if a.Size != want.Size || a.ETag != want.ETag || a.ModTime.IsZero() || a.ContentType != "" {
				t.Fatalf("List(%q) entry %+v; Head says %+v", c.prefix, a, want)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Fatalf("List(%q) = %q, want %q", c.prefix, got, c.want)
		}
	}
}

var invalidKeys = []string{
	"", "/a", "a/", "a//b", ".", "..", "a/../b", "./a", "a/./b", `a\b`,
	"a\x00b", "a\nb", "\xff", strings.Repeat("k", blob.MaxKeyLength+1),
}

func testInvalidKeys(t *testing.T, h Harness, s blob.Store) {
	for _, key := range invalidKeys {
		wantInvalid := func(op string, err error) {
			t.Helper()
			if !errors.Is(err, blob.ErrInvalid) {
				t.Fatalf("%s(%q): %v, want ErrInvalid", op, key, err)
			}
		}
		wantInvalid("Put", s.Put(ctx(t), key, strings.NewReader("x"), 1, "text/plain"))
		_, _, err := s.Get(ctx(t), key)
		wantInvalid("Get", err)
		_, err = s.GetRange(ctx(t), key, 0, 1)
		wantInvalid("GetRange", err)
		_, err = s.Head(ctx(t), key)
		wantInvalid("Head", err)
		wantInvalid("Delete", s.Delete(ctx(t), key))
		_, err = s.PresignGet(ctx(t), key, ttl, "")
		wantInvalid("PresignGet", err)
		_, err = s.PresignPut(ctx(t), key, "text/plain", 1, ttl)
		wantInvalid("PresignPut", err)
	}
	for _, prefix := range []string{"/a", `a\`, "a\x00"} {
		if _, err := s.List(ctx(t), prefix); !errors.Is(err, blob.ErrInvalid) {
			t.Fatalf("List(%q): %v, want ErrInvalid", prefix, err)
		}
	}
	if l, err := s.List(ctx(t), ""); err != nil || len(l) != 0 {
		t.Fatalf("List after refused puts = %+v, %v", l, err)
	}
}

func testInvalidArguments(t *testing.T, h Harness, s blob.Store) {
	wantInvalid := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, blob.ErrInvalid) {
			t.Fatalf("%s: %v, want ErrInvalid", what, err)
		}
	}
	for _, ct := range []string{"", "not a type", "text/plain\n"} {
		wantInvalid("Put with content type "+ct, s.Put(ctx(t), "k", strings.NewReader("x"), 1, ct))
		_, err := s.PresignPut(ctx(t), "k", ct, 1, ttl)
		wantInvalid("PresignPut with content type "+ct, err)
	}
	for _, d := range []time.Duration{0, -time.Minute, 500 * time.Millisecond, blob.MaxPresignTTL + time.Second} {
		_, err := s.PresignGet(ctx(t), "k", d, "")
		wantInvalid("PresignGet with ttl "+d.String(), err)
		_, err = s.PresignPut(ctx(t), "k", "text/plain", 1, d)
		wantInvalid("PresignPut with ttl "+d.String(), err)
	}
	for _, n := range []int64{0, -2} {
		_, err := s.PresignPut(ctx(t), "k", "text/plain", n, ttl)
		wantInvalid(fmt.Sprintf("PresignPut with length %d", n), err)
	}
	for _, name := range []string{"a/b.mp3", `a\b.mp3`, "a\nb.mp3"} {
		_, err := s.PresignGet(ctx(t), "k", ttl, name)
		wantInvalid("PresignGet with filename "+name, err)
	}
	wantMissing(t, s, "k")
}
