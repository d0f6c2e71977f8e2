package allowlist

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/quota"
	"musiccatalog/pkg/store"
)

// MaxUserIDLength bounds X-User-ID, which becomes part of a storage key,
// in characters (at most 4 bytes each: the key stays under DynamoDB's
// 2,048-byte partition key).
const MaxUserIDLength = 255

// MaxNameLength bounds a channel's display name, in characters.
const MaxNameLength = 200

// MaxChannels caps one allowlist (a client's own, or one end user's). The
// spec sets no number (interface.md §4.8 documents only the listing); this
// one is generous: a creator has a handful of channels, an agency listing
// its roster under its own key a few hundred. It bounds what every listing
// reads, since a page needs the whole list sorted by when each channel was
// added (about 0.3 KB an entry: 1.5 MB at the cap). The count is kept
// exactly, in the transaction of every add and remove (quota.Held).
const MaxChannels = 5000

// heldScope names the allowlist counters (quota.Held).
const heldScope = "allowlist"

// Owner is whose allowlist is meant: a partner client's own, or one of its
// end users' (EndUser exactly as the partner wrote it in X-User-ID).
type Owner struct {
	ClientID string
	EndUser  string // "" for the client's own list
}

func (o Owner) partition() string {
	if o.EndUser == "" {
		return "ALLOW#" + o.ClientID + "#SELF"
	}
	return "ALLOW#" + o.ClientID + "#U#" + o.EndUser
}

// AddInput is the body of an add: either URL, or Provider and ChannelID.
// Name and ImageURL are optional display data supplied by the partner.
type AddInput struct {
	URL       string `json:"url"`
	Provider  string `json:"provider"`
	ChannelID string `json:"channel_id"`
	Name      string `json:"name"`
	ImageURL  string `json:"image_url"`
}

// Service manages allowlists on the Accounts table, their sizes on the
// Quotas table.
type Service struct {
	st    store.Store
	clock clock.Clock
	held  *quota.Held
	max   int64 // MaxChannels; tests lower it
}

// New returns a Service.
func New(st store.Store, c clock.Clock) *Service {
	return &Service{st: st, clock: c, held: quota.NewHeld(st, heldScope), max: MaxChannels}
}

// List returns one page of the owner's channels, newest first, and the total.
func (s *Service) List(ctx context.Context, o Owner, limit, offset int) ([]Channel, int, error) {
	const op = "allowlist.List"
	var items []store.Item
	cursor := ""
	for {
		page, err := s.st.Query(ctx, store.Accounts, store.Query{PK: o.partition(), SKPrefix: "CH#", Cursor: cursor, Limit: 500})
		if err != nil {
			return nil, 0, errs.Wrap(op, err)
		}
		items = append(items, page.Items...)
		if cursor = page.Cursor; cursor == "" {
			break
		}
	}
	slices.SortFunc(items, func(a, b store.Item) int {
		return cmp.Or(cmp.Compare(b.Int("created_at"), a.Int("created_at")), strings.Compare(a.SK, b.SK))
	})
	total := len(items)
	if offset >= total {
		return []Channel{}, total, nil
	}
	items = items[offset:min(total, offset+limit)]
	out := make([]Channel, 0, len(items))
	for _, it := range items {
		var c Channel
		if err := json.Unmarshal(it.Bytes("channel"), &c); err != nil {
			return nil, 0, errs.Wrap(op, err)
		}
		out = append(out, c)
	}
	return out, total, nil
}

// Add allowlists a channel. Adding a channel that is already on the list
// returns the stored entry with created=false and changes nothing.
func (s *Service) Add(ctx context.Context, o Owner, in AddInput) (Channel, bool, error) {
	const op = "allowlist.Add"
	provider, channelID, err := resolveInput(op, in)
	if err != nil {
		return Channel{}, false, err
	}
	if utf8.RuneCountInString(in.Name) > MaxNameLength {
		return Channel{}, false, errs.Field(op, "name", fmt.Sprintf("Ensure this field has no more than %d characters.", MaxNameLength))
	}
	if strings.IndexFunc(in.Name, unicode.IsControl) >= 0 { // a display name is one line of text
		return Channel{}, false, errs.Field(op, "name", "Must not contain control characters.")
	}
	if in.ImageURL != "" {
		if u, err := url.Parse(in.ImageURL); err != nil || u.Scheme != "https" || u.Host == "" {
			return Channel{}, false, errs.Field(op, "image_url", "Enter a valid https URL.")
		}
	}
	name := in.Name
	if name == "" {
		name = strings.TrimPrefix(channelID, "@")
	}
	c := Channel{
		// The id is derived from owner and channel so that a retried add
		// names the same entry.
		ID:        ids.NameUUID("allowlist", o.partition()+"\x00"+provider+"\x00"+IdentityOf(provider, channelID)),
		ChannelID: channelID, Name: name, Provider: provider, ImageURL: in.ImageURL,
	}
	body, _ := json.Marshal(c)
	key := store.Key{PK: o.partition(), SK: "CH#" + c.ID}
	for range maxAddAttempts {
		take, err := s.held.Take(ctx, o.partition(), s.max,
			quota.Counting(s.st, store.Accounts, store.Query{PK: o.partition(), SKPrefix: "CH#"}))
		if err == nil {
			err = s.st.Transact(ctx, []store.TxOp{
				store.TxPut(store.Accounts, store.Item{Key: key, Attrs: map[string]any{
					"channel": body, "created_at": store.UnixNano(s.clock.Now()),
				}}, store.NotExists()),
				take,
			})
			if err == nil {
				return c, true, nil
			}
		}
		full := errors.Is(err, quota.ErrFull)
		if !full && !errors.Is(err, store.ErrConditionFailed) && !errors.Is(err, store.ErrContention) {
			return Channel{}, false, errs.Wrap(op, err)
		}
		// Listed already (a repeated add: not an error, even at the cap),
		// or the list changed under this add: look.
		existing, found, err := s.get(ctx, key)
		switch {
		case err != nil:
			return Channel{}, false, errs.Wrap(op, err)
		case found:
			return existing, false, nil
		case full:
			return Channel{}, false, errs.E(op, errs.Invalid, fmt.Sprintf(
				"This allowlist already holds %d channels, the most it can hold. Remove one to add another.", s.max))
		}
		// Removed between the two calls, or the count moved: try again.
	}
	// A transient conflict of the server's, not a limit of the caller's
	// (§7.2 has no 429 for the allowlist): 503 with when to retry.
	return Channel{}, false, &errs.Error{Op: op, Kind: errs.Unavailable, RetryAfter: addRetryAfter,
		Detail: "Too many changes to this channel at once. Please retry in a moment."}
}

// get reads one entry; found false when absent.
func (s *Service) get(ctx context.Context, key store.Key) (Channel, bool, error) {
	it, err := s.st.Get(ctx, store.Accounts, key)
	if errors.Is(err, store.ErrNotFound) {
		return Channel{}, false, nil
	}
	if err != nil {
		return Channel{}, false, err
	}
	var c Channel
	if err := json.Unmarshal(it.Bytes("channel"), &c); err != nil {
		return Channel{}, false, err
	}
	return c, true, nil
}

// addRetryAfter is the Retry-After of an add that ran out of attempts.
const addRetryAfter = time.Second

// maxAddAttempts bounds the rounds of an add racing removes of the same
// channel (each round is a conditional put and a read).
const maxAddAttempts = 5

func resolveInput(op string, in AddInput) (provider, channelID string, err error) {
	switch {
	case in.URL != "" && (in.Provider != "" || in.ChannelID != ""):
		return "", "", errs.E(op, errs.Invalid, "Send either 'url' or 'provider' with 'channel_id', not both.")
	case in.URL != "":
		p, id, perr := ParseChannelURL(in.URL)
		if perr != nil {
			return "", "", errs.Field(op, "url", perr.Error())
		}
		return p, id, nil
	case in.Provider == "" && in.ChannelID == "":
		return "", "", errs.E(op, errs.Invalid, "Provide 'url', or 'provider' with 'channel_id'.")
	}
	fields := map[string][]string{}
	if in.Provider == "" {
		fields["provider"] = []string{"This field is required."}
	}
	if in.ChannelID == "" {
		fields["channel_id"] = []string{"This field is required."}
	}
	if len(fields) == 0 {
		if f, msg := ValidateChannelID(strings.ToLower(in.Provider), in.ChannelID); f != "" {
			fields[f] = []string{msg}
		}
	}
	if len(fields) > 0 {
		return "", "", &errs.Error{Op: op, Kind: errs.Invalid, Fields: fields}
	}
	return strings.ToLower(in.Provider), in.ChannelID, nil
}

// Remove deletes the owner's entry with this id; NotFound when absent.
func (s *Service) Remove(ctx context.Context, o Owner, id string) error {
	const op = "allowlist.Remove"
	cid, ok := ids.CanonicalUUID(id)
	if !ok {
		return errs.E(op, errs.NotFound, "Channel not found.")
	}
	key := store.Key{PK: o.partition(), SK: "CH#" + cid}
	for range maxAddAttempts {
		release, err := s.held.Release(ctx, o.partition())
		if err != nil {
			return errs.Wrap(op, err)
		}
		err = s.st.Transact(ctx, []store.TxOp{store.TxDelete(store.Accounts, key, store.Exists()), release})
		if err == nil {
			return nil
		}
		if !errors.Is(err, store.ErrConditionFailed) && !errors.Is(err, store.ErrContention) {
			return errs.Wrap(op, err)
		}
		if _, found, err := s.get(ctx, key); err != nil {
			return errs.Wrap(op, err)
		} else if !found {
			return errs.E(op, errs.NotFound, "Channel not found.")
		}
		// The count moved under this remove: try again.
	}
	return &errs.Error{Op: op, Kind: errs.Unavailable, RetryAfter: addRetryAfter,
		Detail: "Too many changes to this allowlist at once. Please retry in a moment."}
}
