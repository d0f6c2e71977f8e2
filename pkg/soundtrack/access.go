package soundtrack

import (
	"context"
	"errors"

	"musiccatalog/pkg/store"
)

// Who may search with an uploaded file's source_value (its content hash).
// The analysis is shared by every upload of the same bytes, so the hash
// alone would tell anyone whether a file was ever uploaded. Each uploaded
// video therefore leaves a grant beside the analysis, living as long as
// the video: one for its creator, plus one for everybody when the video
// is public (gaps.md: public videos are readable by anyone, private ones
// only by their creator). A hash without a grant for the caller reads
// exactly as an unknown one.

// viewerAnyone is the grant of a public video.
const viewerAnyone = "*"

func grantKey(hash, viewer string) store.Key {
	return store.Key{PK: analysisKey(fileValueKey(hash), kindFull).PK, SK: "VIEWER#" + viewer}
}

// grantOps are the writes that let v's creator (and everybody, when v is
// public) use v's source_value until v expires.
func grantOps(v Video) []store.TxOp {
	if v.SourceType != SourceFile {
		return nil
	}
	viewers := []string{v.CreatedBy}
	if v.Public {
		viewers = append(viewers, viewerAnyone)
	}
	ops := make([]store.TxOp, 0, len(viewers))
	for _, who := range viewers {
		ops = append(ops, store.TxPut(store.Jobs, store.Item{Key: grantKey(v.SourceValue, who),
			Attrs: map[string]any{attrCreatedBy: v.CreatedBy}, ExpiresAt: v.ExpiresAt}, nil))
	}
	return ops
}

// mayUseHash reports whether viewer (a principal id, "" when anonymous)
// may use the analysis of the uploaded file hash.
func (s *Service) mayUseHash(ctx context.Context, hash, viewer string) (bool, error) {
	for _, who := range []string{viewerAnyone, viewer} {
		if who == "" {
			continue
		}
		_, err := s.st.Get(ctx, store.Jobs, grantKey(hash, who))
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return false, err
		}
	}
	return false, nil
}
