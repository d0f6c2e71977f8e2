package downloads

import (
	"context"
	"errors"
	"fmt"
	"time"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/store"
)

// Download counts live in the Quotas table, one item per client, month and
// asset: PK "DOWNLOADS#<client>#<YYYY-MM>", SK "<type>#<asset id>", with
// atomic counters (attrDownloads and one per format, attrConfirmed for
// downloads whose caller confirmed personal use). One partition per
// client and month makes the monthly report a single query. Unlike quota
// counters they never expire: they are the partner's reporting record.
const (
	countPrefix   = "DOWNLOADS#"
	attrDownloads = "downloads"
	attrConfirmed = "personal_use_confirmed"
	attrZIP       = "zip"
	attrType      = "asset_type"
	attrAsset     = "asset_id"
	attrName      = "name"
	monthLayout   = "2006-01"
)

// Count is one line of the download report.
type Count struct {
	Month     string // YYYY-MM (UTC)
	ClientID  string
	AssetType string
	AssetID   string
	Name      string // the asset's name when it was last downloaded
	Downloads int64
	MP3, WAV  int64
	// PersonalUseConfirmed counts the downloads sent with
	// confirm_personal_use: true.
	PersonalUseConfirmed int64
	// ZIP counts the downloads that were ZIP archives (both formats or
	// stems); such a download adds one to each format it holds.
	ZIP int64
}

func countKey(clientID, month, kind, assetID string) store.Key {
	return store.Key{PK: countPrefix + clientID + "#" + month, SK: kind + "#" + assetID}
}

// count adds one download of req to the client's counters for this
// month: one download, one per format it holds, one ZIP when it is one.
func (s *Service) count(ctx context.Context, clientID string, as catalog.Asset, req Request) error {
	add := map[string]int64{attrDownloads: 1}
	for _, f := range req.Formats {
		add[f] = 1
	}
	if req.zip() {
		add[attrZIP] = 1
	}
	if req.ConfirmPersonalUse {
		add[attrConfirmed] = 1
	}
	month := s.clock.Now().UTC().Format(monthLayout)
	_, err := s.st.Update(ctx, store.Quotas, countKey(clientID, month, as.Kind, as.ID), store.Update{
		Add: add,
		Set: map[string]any{attrType: as.Kind, attrAsset: as.ID, attrName: as.Name},
	}, nil)
	if err != nil {
		return fmt.Errorf("downloads: count: %w", err)
	}
	return nil
}

// ParseMonth checks a YYYY-MM month.
func ParseMonth(s string) (time.Time, error) {
	t, err := time.Parse(monthLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("month %q: want YYYY-MM", s)
	}
	return t, nil
}

// Report returns the client's download counts of month (YYYY-MM), by
// asset type and id.
func (s *Service) Report(ctx context.Context, clientID, month string) ([]Count, error) {
	if clientID == "" {
		return nil, errors.New("downloads: report: a client id is required")
	}
	if _, err := ParseMonth(month); err != nil {
		return nil, fmt.Errorf("downloads: report: %w", err)
	}
	q := store.Query{PK: countPrefix + clientID + "#" + month}
	var out []Count
	for {
		page, err := s.st.Query(ctx, store.Quotas, q)
		if err != nil {
			return nil, fmt.Errorf("downloads: report: %w", err)
		}
		for _, it := range page.Items {
			out = append(out, Count{Month: month, ClientID: clientID,
				AssetType: it.Str(attrType), AssetID: it.Str(attrAsset), Name: it.Str(attrName),
				Downloads: it.Int(attrDownloads), MP3: it.Int(FormatMP3), WAV: it.Int(FormatWAV),
				PersonalUseConfirmed: it.Int(attrConfirmed), ZIP: it.Int(attrZIP)})
		}
		if page.Cursor == "" {
			return out, nil
		}
		q.Cursor = page.Cursor
	}
}
