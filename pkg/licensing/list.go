package licensing

import (
	"context"
	"errors"
	"strings"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/store"
)

// Filter narrows a listing; empty fields match everything.
type Filter struct {
	UserID  string // as sent in X-User-ID (trimmed here)
	TrackID string // a UUID
}

// listPageSize is how many entries one store query reads while paging.
const listPageSize = 200

// List returns one page of the client's licenses, newest first, and how
// many match in all. Both filters together read the end user's entries
// (a partner's end user holds few licenses) and keep the track's.
func (s *Service) List(ctx context.Context, clientID string, f Filter, limit, offset int) ([]License, int, error) {
	const op = "licensing.List"
	fields := map[string][]string{}
	if f.UserID != "" {
		id, msg := NormalizeUserID(f.UserID)
		if msg != "" {
			fields["user_id"] = []string{msg}
		}
		f.UserID = id
	}
	if f.TrackID != "" {
		if msg := TrackIDProblem(f.TrackID); msg != "" {
			fields["track_id"] = []string{msg}
		}
		f.TrackID = strings.ToLower(f.TrackID)
	}
	if len(fields) > 0 {
		return nil, 0, ValidationError(op, fields)
	}
	partition := clientPartition(clientID)
	switch {
	case f.UserID != "":
		partition = userPartition(clientID, f.UserID)
	case f.TrackID != "":
		partition = trackPartition(clientID, f.TrackID)
	}
	if f.UserID != "" && f.TrackID != "" {
		all, err := s.entries(ctx, partition, 0, func(l License) bool { return l.TrackID == f.TrackID })
		if err != nil {
			return nil, 0, errs.Wrap(op, err)
		}
		return window(all, offset, limit), len(all), nil
	}
	total, err := s.count(ctx, partition)
	if err != nil {
		return nil, 0, errs.Wrap(op, err)
	}
	if offset >= total {
		return []License{}, total, nil
	}
	head, err := s.entries(ctx, partition, offset+limit, nil)
	if err != nil {
		return nil, 0, errs.Wrap(op, err)
	}
	return window(head, offset, limit), total, nil
}

func window(ls []License, offset, limit int) []License {
	if offset >= len(ls) {
		return []License{}
	}
	return ls[offset:min(len(ls), offset+limit)]
}

func (s *Service) count(ctx context.Context, partition string) (int, error) {
	it, err := s.st.Get(ctx, store.Licenses, store.Key{PK: partition, SK: countSK})
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return int(it.Int(attrCount)), nil
}

// entries reads a listing partition newest first until it has n licenses
// that keep (n 0: all of them; keep nil: every one).
func (s *Service) entries(ctx context.Context, partition string, n int, keep func(License) bool) ([]License, error) {
	var out []License
	cursor := ""
	for {
		size := listPageSize
		if n > 0 && keep == nil {
			size = min(size, n-len(out))
		}
		page, err := s.st.Query(ctx, store.Licenses, store.Query{PK: partition, SKPrefix: entryPrefix,
			Descending: true, Limit: size, Cursor: cursor})
		if err != nil {
			return nil, err
		}
		for _, it := range page.Items {
			l, err := decode(it)
			if err != nil {
				return nil, err
			}
			if keep == nil || keep(l) {
				out = append(out, l)
			}
		}
		if cursor = page.Cursor; cursor == "" || (n > 0 && len(out) >= n) {
			return out, nil
		}
	}
}
