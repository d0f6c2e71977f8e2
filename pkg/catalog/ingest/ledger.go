package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"musiccatalog/pkg/blob"
)

// LedgerKey is the ingest ledger: for every asset a manifest has set, which
// manifest set it last and when that manifest was written. An S3 event is
// delivered at least once and a failed catalog-ingest invocation is
// retried, so an older manifest can run again after a newer one was
// published; merged on top of the newer catalog it would silently take
// back every change the newer one made to the assets both list (a track
// restricted again unrestricted). With the ledger, an asset a newer
// manifest has set is left alone (reported as a warning); the rest of the
// older manifest still applies. The ledger is written under the publish
// lock after each publish; a crash between the two leaves the ledger one
// manifest behind, and the retry that follows re-applies the same
// manifest, which publishes nothing new and writes the ledger. A ledger
// that cannot be read (corrupt) fails every ingest until it is deleted;
// deleting it only forgets which manifest set what. Manifests applied
// before the ledger existed are not in it.
const LedgerKey = "catalog/ingest-ledger.json"

// Source says which manifest a run applies and when it was written (the
// object's last modification for an uploaded manifest, the run's own time
// for one an operator runs from a file). A zero Modified leaves the ledger
// out of the run.
type Source struct {
	Key      string
	Modified time.Time
}

// after reports whether s was written after o: by time, then (the same
// second, the resolution of S3's Last-Modified) by key.
func (s Source) after(o Source) bool {
	if !s.Modified.Equal(o.Modified) {
		return s.Modified.After(o.Modified)
	}
	return s.Key > o.Key
}

// ledger is LedgerKey's contents: the manifests, and each asset's index
// among them.
type ledger struct {
	Manifests []Source       `json:"manifests"`
	Assets    map[string]int `json:"assets"`
}

func loadLedger(ctx context.Context, b blob.Store) (*ledger, error) {
	l := &ledger{Assets: map[string]int{}}
	rc, _, err := b.Get(ctx, LedgerKey)
	if errors.Is(err, blob.ErrNotFound) {
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ingest: read the ledger: %w", err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("ingest: read the ledger: %w", err)
	}
	if err := json.Unmarshal(data, l); err != nil {
		return nil, fmt.Errorf("ingest: the ledger %s is corrupt: %w", LedgerKey, err)
	}
	if l.Assets == nil {
		l.Assets = map[string]int{}
	}
	for id, i := range l.Assets {
		if i < 0 || i >= len(l.Manifests) {
			return nil, fmt.Errorf("ingest: the ledger %s is corrupt: asset %s names manifest %d of %d", LedgerKey, id, i, len(l.Manifests))
		}
	}
	return l, nil
}

// supersededBy is the manifest written after src that last set asset id,
// if there is one.
func (l *ledger) supersededBy(id string, src Source) (Source, bool) {
	i, ok := l.Assets[id]
	if !ok || !l.Manifests[i].after(src) {
		return Source{}, false
	}
	return l.Manifests[i], true
}

// record notes that src set the assets ids, forgets the assets the
// catalog no longer holds (inCatalog; removed by a replace) and drops the
// manifests no asset names any more.
func (l *ledger) record(src Source, ids []string, inCatalog map[string]bool) {
	if len(ids) > 0 {
		l.Manifests = append(l.Manifests, src)
		for _, id := range ids {
			l.Assets[id] = len(l.Manifests) - 1
		}
	}
	for id := range l.Assets {
		if !inCatalog[id] {
			delete(l.Assets, id)
		}
	}
	used := make([]int, len(l.Manifests))
	for i := range used {
		used[i] = -1
	}
	var kept []Source
	for id, i := range l.Assets {
		if used[i] < 0 {
			used[i] = len(kept)
			kept = append(kept, l.Manifests[i])
		}
		l.Assets[id] = used[i]
	}
	l.Manifests = kept
}

func (l *ledger) save(ctx context.Context, b blob.Store) error {
	data, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("ingest: write the ledger: %w", err)
	}
	if err := b.Put(ctx, LedgerKey, bytes.NewReader(data), int64(len(data)), "application/json"); err != nil {
		return fmt.Errorf("ingest: write the ledger: %w", err)
	}
	return nil
}
