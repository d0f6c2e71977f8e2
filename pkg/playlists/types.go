package playlists

import (
	"time"
)

// Limits of the playlist endpoints. interface.md §8 gives the list
// pagination; gaps.md the reorder bounds; the rest are ours, chosen so a
// playlist record stays far below DynamoDB's 400 KB item limit and a
// delete fits in one transaction (at most 100 writes).
const (
	DefaultListLimit = 20  // §8 playlist list `limit` default
	MaxListLimit     = 100 // §8 playlist list `limit` maximum
	MaxReorderItems  = 500 // gaps.md reorder: 1 to 500 entries
	MaxItems         = 2000
	// MaxOwned caps the playlists one user owns (shared ones count for
	// their owners). The spec sets no number; a user with more than a
	// thousand playlists is far past any real use, and the listing reads
	// every playlist the user can see for each page. The count is kept
	// exactly, in the transaction of every create and delete (quota.Held).
	MaxOwned          = 1000
	MaxCollaborators  = 50
	MaxNameLength     = 255
	MaxDescription    = 5000
	MaxImageBytes     = 10_000_000 // issue 10: cover images up to 10 MB
	MaxImagePixels    = 40_000_000 // refuse decompression bombs before decoding
	maxSlugLength     = 50
	maxSearchedLists  = 100 // search port: most recent playlists examined (one read each)
	maxMutateAttempts = 200
)

// Kind is the type of a playlist item.
type Kind string

const (
	KindTrack   Kind = "track"
	KindStem    Kind = "stem"
	KindSoundFX Kind = "soundfx"
)

// Valid reports whether k is a known item kind.
func (k Kind) Valid() bool { return k == KindTrack || k == KindStem || k == KindSoundFX }

// Permission is what the caller may do with a playlist (§2.7).
type Permission string

const (
	PermOwner   Permission = "owner"
	PermCanEdit Permission = "can_edit"
)

// Item is one entry of a playlist. Length is the asset's duration in
// seconds when it was added, so that `duration` needs no catalog.
type Item struct {
	Kind   Kind   `json:"k"`
	ID     string `json:"i"`
	Length int    `json:"l"`
}

// Ref names an asset without its length (request input).
type Ref struct {
	Kind Kind
	ID   string
}

func (it Item) ref() Ref { return Ref{it.Kind, it.ID} }

// User is a person as a playlist shows them.
type User struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Name     string `json:"name,omitempty"`
}

// Collaborator is a user the owner shared the playlist with.
type Collaborator struct {
	User
	Permission Permission `json:"permission"`
	AddedAt    time.Time  `json:"added_at"`
}

// Image is a cover image: blob keys of the three sizes and its blurhash.
type Image struct {
	Blurhash string `json:"blurhash"`
	Small    string `json:"small"`
	Medium   string `json:"medium"`
	Large    string `json:"large"`
}

func (im *Image) keys() []string {
	if im == nil {
		return nil
	}
	return []string{im.Small, im.Medium, im.Large}
}

// Playlist is the stored record.
type Playlist struct {
	ID            string         `json:"id"`
	ClientID      string         `json:"client_id"`
	Owner         User           `json:"owner"`
	Name          string         `json:"name"`
	Slug          string         `json:"slug"`
	Description   string         `json:"description"`
	Items         []Item         `json:"-"` // stored compactly beside the JSON (see encodeItems)
	Collaborators []Collaborator `json:"collaborators"`
	Image         *Image         `json:"image,omitempty"`
	CreatedAt     time.Time      `json:"created_at"`
	UpdatedAt     time.Time      `json:"updated_at"`
	// Version counts the writes; every write is conditional on it.
	Version int64 `json:"-"`
}

// Tracks is the item count (§2.7 `tracks`).
func (p *Playlist) Tracks() int { return len(p.Items) }

// Duration is the items' total length in seconds (§2.7 `duration`).
func (p *Playlist) Duration() int {
	n := 0
	for _, it := range p.Items {
		n += it.Length
	}
	return n
}

// PermissionOf is the permission userID has, or "" when the playlist is
// not visible to them.
func (p *Playlist) PermissionOf(userID string) Permission {
	if p.Owner.ID == userID {
		return PermOwner
	}
	for _, c := range p.Collaborators {
		if c.ID == userID {
			return c.Permission
		}
	}
	return ""
}

// Caller is who acts on playlists: a signed-in user of a partner client
// and what the client's plan lets them add.
type Caller struct {
	User     User
	ClientID string
	Plan     string // identity plan of the client ("free", "enterprise", ...)
	SFX      bool   // the client has sound effects enabled
}

// ItemsInput lists the assets of a create or add/remove request, per kind
// as the body names them (`tracks`, `stems`, `soundfxs`).
type ItemsInput struct {
	Tracks, Stems, SoundFXs []string
}

func (in ItemsInput) empty() bool {
	return in.Tracks == nil && in.Stems == nil && in.SoundFXs == nil
}

// ItemsResult reports what an add or delete did (§4.7).
type ItemsResult struct {
	Added      int
	Removed    int
	Skipped    []string // ids the caller cannot add (unknown, or outside their plan); for delete, ids not in the playlist
	Duplicated []string // ids already in the playlist or repeated in the request
}
