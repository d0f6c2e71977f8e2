package playlists

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/ids"
)

// ReorderInput is one of three forms (exactly one):
//   - Move with Offset (gaps.md): the listed items move Offset places,
//     down when positive, up when negative, clamped to the ends.
//   - Order: every item of the playlist by id, in the new order.
//   - Item with Position: that item moves to Position (0-based).
type ReorderInput struct {
	Move     []Ref
	Offset   int
	Order    []string
	Item     string
	Position int
}

// Reorder changes the order of the items (owner and collaborators) and
// returns the item count.
func (s *Service) Reorder(ctx context.Context, c Caller, slug string, in ReorderInput) (int, error) {
	const op = "playlists.Reorder"
	v, err := s.Get(ctx, c, slug)
	if err != nil {
		return 0, err
	}
	var total int
	_, err = s.mutate(ctx, v.Playlist, mutation{apply: func(p *Playlist) error {
		if p.PermissionOf(c.User.ID) == "" {
			return notFound(op)
		}
		next, err := reorder(p.Items, in)
		if err != nil {
			return err
		}
		total = len(next)
		if slices.Equal(next, p.Items) {
			return errUnchanged
		}
		p.Items = next
		return nil
	}, result: &total})
	return total, err
}

// reorder computes the new order of items, or a 400 naming what is wrong.
func reorder(items []Item, in ReorderInput) ([]Item, error) {
	const op = "playlists.reorder"
	switch {
	case in.Order != nil:
		return permute(items, in.Order)
	case in.Item != "":
		id, _ := ids.CanonicalUUID(in.Item)
		from := slices.IndexFunc(items, func(it Item) bool { return it.ID == id })
		if from < 0 {
			return nil, errs.Field(op, "item", "\""+in.Item+"\" is not in this playlist.")
		}
		if in.Position < 0 || in.Position >= len(items) {
			return nil, errs.Field(op, "position", "Must be between 0 and "+strconv.Itoa(len(items)-1)+".")
		}
		it := items[from]
		out := slices.Delete(slices.Clone(items), from, from+1)
		return slices.Insert(out, in.Position, it), nil
	default:
		return moveBy(items, in.Move, in.Offset)
	}
}

// permute puts items in the order of order, which must name every item
// exactly once.
func permute(items []Item, order []string) ([]Item, error) {
	const op = "playlists.permute"
	byID := make(map[string]int, len(items))
	for i, it := range items {
		byID[it.ID] = i
	}
	out := make([]Item, 0, len(items))
	used := make(map[string]bool, len(order))
	var extra, repeated []string
	for _, raw := range order {
		id, _ := ids.CanonicalUUID(strings.TrimSpace(raw))
		i, ok := byID[id]
		switch {
		case !ok:
			extra = append(extra, raw)
		case used[id]:
			repeated = append(repeated, raw)
		default:
			used[id] = true
			out = append(out, items[i])
		}
	}
	var missing []string
	for _, it := range items {
		if !used[it.ID] {
			missing = append(missing, it.ID)
		}
	}
	if len(extra)+len(repeated)+len(missing) == 0 {
		return out, nil
	}
	var msgs []string
	if len(missing) > 0 {
		msgs = append(msgs, "Missing items of this playlist: "+strings.Join(missing, ", ")+".")
	}
	if len(extra) > 0 {
		msgs = append(msgs, "Not in this playlist: "+strings.Join(extra, ", ")+".")
	}
	if len(repeated) > 0 {
		msgs = append(msgs, "Listed more than once: "+strings.Join(repeated, ", ")+".")
	}
	return nil, &errs.Error{Op: op, Kind: errs.Invalid, Fields: map[string][]string{"items": msgs}}
}

// moveBy moves each listed item offset places (clamped), keeping the
// moved items' relative order and the others' order.
func moveBy(items []Item, move []Ref, offset int) ([]Item, error) {
	const op = "playlists.moveBy"
	// An offset beyond the playlist moves as far as it can: clamped first,
	// so that i+offset cannot overflow (a huge positive offset wrapped to
	// a negative one and moved the item to the top).
	offset = min(max(offset, -len(items)), len(items))
	index := make(map[Ref]int, len(items))
	for i, it := range items {
		index[it.ref()] = i
	}
	type moved struct{ from, to int }
	var ms []moved
	picked := map[int]bool{}
	var absent []string
	for _, r := range move {
		i, ok := index[r]
		if !ok {
			absent = append(absent, string(r.Kind)+" "+r.ID)
			continue
		}
		if picked[i] {
			continue
		}
		picked[i] = true
		ms = append(ms, moved{i, min(max(i+offset, 0), len(items)-1)})
	}
	if len(absent) > 0 {
		return nil, errs.Field(op, "items", "Not in this playlist: "+strings.Join(absent, ", ")+".")
	}
	rest := make([]Item, 0, len(items))
	for i, it := range items {
		if !picked[i] {
			rest = append(rest, it)
		}
	}
	slices.SortFunc(ms, func(a, b moved) int {
		if a.to != b.to {
			return a.to - b.to
		}
		return a.from - b.from
	})
	out := rest
	for _, m := range ms {
		out = slices.Insert(out, min(m.to, len(out)), items[m.from])
	}
	return out, nil
}
