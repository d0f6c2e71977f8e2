package licensing

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"musiccatalog/pkg/store"
)

// The Licenses table holds, per license:
//
//	LICENSE#<id>                     LICENSE    the license (lookup, public page)
//	LICENSE-KEY#<client>#<digest>    KEY        the idempotency record: the same license
//	LICENSES#<client>                L#<t>#<id> listing entry of the client
//	LICENSES#<client>#U#<digest>     L#<t>#<id> listing entry of the end user
//	LICENSES#<client>#T#<track>      L#<t>#<id> listing entry of the track
//	each listing partition           COUNT      its number of entries
//
// <t> is the creation time in unix nanoseconds, zero-padded, so a
// descending query lists newest first. Every entry carries the whole
// (immutable) license, so a page is one query. The digests keep keys
// short whatever the end user's id or project name holds.
const (
	attrLicense = "license"
	attrCount   = "count"
	entryPrefix = "L#"
	countSK     = "COUNT"
)

func licenseKey(id string) store.Key { return store.Key{PK: "LICENSE#" + id, SK: "LICENSE"} }

// idemKey names the one license of (client, user, track, project).
func idemKey(clientID string, in Input) store.Key {
	h := sha256.New()
	for _, part := range []string{in.UserID, in.TrackID, in.ProjectName} {
		fmt.Fprintf(h, "%d:%s;", len(part), part) // length-prefixed: no two tuples collide
	}
	return store.Key{PK: "LICENSE-KEY#" + clientID + "#" + hex.EncodeToString(h.Sum(nil)), SK: "KEY"}
}

// Listing partitions.
func clientPartition(clientID string) string { return "LICENSES#" + clientID }

func userPartition(clientID, userID string) string {
	d := sha256.Sum256([]byte(userID))
	return clientPartition(clientID) + "#U#" + hex.EncodeToString(d[:])
}

func trackPartition(clientID, trackID string) string {
	return clientPartition(clientID) + "#T#" + trackID
}

func entrySK(l License) string {
	return fmt.Sprintf("%s%020d#%s", entryPrefix, l.CreatedAt.UnixNano(), l.ID)
}

// doc is the stored form of a License.
type doc struct {
	ID          string     `json:"license_id"`
	ClientID    string     `json:"client_id"`
	ClientName  string     `json:"client_name"`
	UserID      string     `json:"user_id"`
	TrackID     string     `json:"track_id"`
	TrackName   string     `json:"track_name"`
	ArtistName  string     `json:"artist_name"`
	ProjectName string     `json:"project_name"`
	CreatedAt   time.Time  `json:"created_at"`
	ExpiresAt   *time.Time `json:"expires_at"`
}

func encode(l License) []byte {
	b, _ := json.Marshal(doc(l)) // a struct of strings and times always marshals
	return b
}

func decode(it store.Item) (License, error) {
	var d doc
	if err := json.Unmarshal(it.Bytes(attrLicense), &d); err != nil {
		return License{}, fmt.Errorf("licensing: item %q/%q: %w", it.PK, it.SK, err)
	}
	return License(d), nil
}

// writeOps are the writes of a new license: each fails the transaction
// when its item exists, so the idempotency record decides between
// concurrent identical calls, and a (vanishingly unlikely) id collision
// never overwrites a license.
func writeOps(l License, key store.Key) []store.TxOp {
	body := encode(l)
	item := func(k store.Key) store.Item {
		return store.Item{Key: k, Attrs: map[string]any{attrLicense: body}}
	}
	ops := []store.TxOp{
		store.TxPut(store.Licenses, item(licenseKey(l.ID)), store.NotExists()),
		store.TxPut(store.Licenses, item(key), store.NotExists()),
	}
	sk := entrySK(l)
	for _, p := range listingPartitions(l) {
		ops = append(ops,
			store.TxPut(store.Licenses, item(store.Key{PK: p, SK: sk}), store.NotExists()),
			store.TxUpdate(store.Licenses, store.Key{PK: p, SK: countSK},
				store.Update{Add: map[string]int64{attrCount: 1}}, nil))
	}
	return ops
}

func listingPartitions(l License) []string {
	return []string{clientPartition(l.ClientID), userPartition(l.ClientID, l.UserID), trackPartition(l.ClientID, l.TrackID)}
}
