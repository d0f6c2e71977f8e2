package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"musiccatalog/pkg/blob"
)

func (r *run) exists(ctx context.Context, key string) (bool, error) {
	_, err := r.opts.Blob.Head(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// renditionsOf reports whether the stored renditions of id were made from
// the audio with this digest: the previous catalog says so and they exist.
func (r *run) renditionsOf(ctx context.Context, id, sha string) (bool, error) {
	prev, ok := r.prevAudio[id]
	if !ok || prev.SHA256 != sha || prev.MP3Key != mp3Key(id) || prev.WAVKey != wavKey(id) {
		return false, nil
	}
	for _, k := range []string{prev.MP3Key, prev.WAVKey} {
		if ok, err := r.exists(ctx, k); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// getJSON reads a JSON blob into v; false when it does not exist or is
// damaged (it is then recomputed and overwritten).
func (r *run) getJSON(ctx context.Context, key string, v any) (bool, error) {
	rc, _, err := r.opts.Blob.Get(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer rc.Close()
	return json.NewDecoder(rc).Decode(v) == nil, nil
}

func (r *run) putJSON(ctx context.Context, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return r.put(ctx, key, b, "application/json")
}

func (r *run) put(ctx context.Context, key string, b []byte, contentType string) error {
	if err := r.opts.Blob.Put(ctx, key, bytes.NewReader(b), int64(len(b)), contentType); err != nil {
		return fmt.Errorf("store %s: %w", key, err)
	}
	return nil
}

func (r *run) putFile(ctx context.Context, key, path, contentType string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if err := r.opts.Blob.Put(ctx, key, f, fi.Size(), contentType); err != nil {
		return fmt.Errorf("store %s: %w", key, err)
	}
	return nil
}
