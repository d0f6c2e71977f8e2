package fileblob

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"musiccatalog/pkg/blob"
)

const (
	footerMagic = "mcblob01"
	footerSize  = len(footerMagic) + 8
	// maxTrailer bounds what a damaged footer can make us allocate.
	maxTrailer = 64 << 10
)

// trailer is the metadata stored after the content.
type trailer struct {
	ContentType string `json:"content_type"`
	ETag        string `json:"etag"`
	Size        int64  `json:"size"`
}

// objectPath maps a key to its file (see the package comment for why the
// segments carry prefixes).
func (s *Store) objectPath(key string) string {
	segs := strings.Split(key, "/")
	for i := range segs {
		if i == len(segs)-1 {
			segs[i] = "f" + segs[i]
		} else {
			segs[i] = "d" + segs[i]
		}
	}
	return filepath.Join(s.objects, filepath.Join(segs...))
}

// dirPath maps complete key segments to their directory.
func (s *Store) dirPath(segs []string) string {
	p := s.objects
	for _, seg := range segs {
		p = filepath.Join(p, "d"+seg)
	}
	return p
}

// keyOf inverts objectPath for a path relative to the objects directory.
func keyOf(rel string) (string, error) {
	segs := strings.Split(filepath.ToSlash(rel), "/")
	for i, seg := range segs {
		want := "d"
		if i == len(segs)-1 {
			want = "f"
		}
		name, ok := strings.CutPrefix(seg, want)
		if !ok {
			return "", fmt.Errorf("fileblob: stray file %q in the objects directory", rel)
		}
		segs[i] = name
	}
	return strings.Join(segs, "/"), nil
}

// write stores r as key through a temporary file and a rename. With size >=
// 0, r must yield exactly size bytes.
func (s *Store) write(ctx context.Context, key string, r io.Reader, size int64, contentType string) (blob.Attrs, error) {
	if size >= 0 {
		r = blob.ExactReader(r, size)
	}
	tmp, err := os.CreateTemp(s.tmp, "put-*")
	if err != nil {
		return blob.Attrs{}, err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()

	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), ctxReader{ctx, r})
	if err != nil {
		return blob.Attrs{}, err
	}
	t := trailer{ContentType: contentType, ETag: hex.EncodeToString(h.Sum(nil)[:16]), Size: n}
	meta, err := json.Marshal(t)
	if err != nil {
		return blob.Attrs{}, err
	}
	footer := make([]byte, 0, footerSize)
	footer = append(footer, footerMagic...)
	footer = binary.BigEndian.AppendUint64(footer, uint64(len(meta)))
	if _, err := tmp.Write(append(meta, footer...)); err != nil {
		return blob.Attrs{}, err
	}
	if err := tmp.Sync(); err != nil {
		return blob.Attrs{}, err
	}
	info, err := tmp.Stat()
	if err != nil {
		return blob.Attrs{}, err
	}
	if err := tmp.Close(); err != nil {
		return blob.Attrs{}, err
	}
	if err := s.publish(tmp.Name(), s.objectPath(key)); err != nil {
		return blob.Attrs{}, err
	}
	done = true
	return blob.Attrs{Key: key, Size: n, ContentType: contentType, ETag: t.ETag, ModTime: info.ModTime()}, nil
}

// publish renames a complete temporary file into place. Delete prunes empty
// directories, possibly between our MkdirAll and Rename, hence the retries.
func (s *Store) publish(tmp, dst string) error {
	var err error
	for range 5 {
		if err = os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err = os.Rename(tmp, dst); !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return err
}

// open returns the object's file and attributes; the caller closes the file.
func (s *Store) open(key string) (*os.File, blob.Attrs, error) {
	f, err := os.Open(s.objectPath(key))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, blob.Attrs{}, fmt.Errorf("fileblob: %q: %w", key, blob.ErrNotFound)
		}
		return nil, blob.Attrs{}, err
	}
	a, err := readAttrs(f, key)
	if err != nil {
		f.Close()
		return nil, blob.Attrs{}, err
	}
	return f, a, nil
}

func readAttrs(f *os.File, key string) (blob.Attrs, error) {
	info, err := f.Stat()
	if err != nil {
		return blob.Attrs{}, err
	}
	damaged := func(why string) error {
		return fmt.Errorf("fileblob: object file %s is damaged: %s", f.Name(), why)
	}
	total := info.Size()
	if total < int64(footerSize) {
		return blob.Attrs{}, damaged("too short")
	}
	footer := make([]byte, footerSize)
	if _, err := f.ReadAt(footer, total-int64(footerSize)); err != nil {
		return blob.Attrs{}, err
	}
	if !bytes.HasPrefix(footer, []byte(footerMagic)) {
		return blob.Attrs{}, damaged("no footer")
	}
	metaLen := binary.BigEndian.Uint64(footer[len(footerMagic):])
	if metaLen > maxTrailer || int64(metaLen) > total-int64(footerSize) {
		return blob.Attrs{}, damaged("bad trailer length")
	}
	meta := make([]byte, metaLen)
	if _, err := f.ReadAt(meta, total-int64(footerSize)-int64(metaLen)); err != nil {
		return blob.Attrs{}, err
	}
	var t trailer
	if err := json.Unmarshal(meta, &t); err != nil {
		return blob.Attrs{}, damaged(err.Error())
	}
	if t.Size != total-int64(footerSize)-int64(metaLen) {
		return blob.Attrs{}, damaged("size does not match the trailer")
	}
	return blob.Attrs{Key: key, Size: t.Size, ContentType: t.ContentType, ETag: t.ETag, ModTime: info.ModTime()}, nil
}

// ctxReader stops a long copy when the context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
