package playlists

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/store"
)

// CollaboratorInput names the user to share with: UserID or Username
// (exactly one), and the permission (only can_edit exists, §2.7).
type CollaboratorInput struct {
	UserID     string
	Username   string
	Permission string
}

// Collaborators lists who the playlist is shared with (owner and
// collaborators may look).
func (s *Service) Collaborators(ctx context.Context, c Caller, slug string) ([]Collaborator, error) {
	v, err := s.Get(ctx, c, slug)
	if err != nil {
		return nil, err
	}
	return v.Collaborators, nil
}

// AddCollaborator shares the playlist with a user of the owner's partner
// client (owner only). Adding someone already there changes nothing and
// reports created=false.
func (s *Service) AddCollaborator(ctx context.Context, c Caller, slug string, in CollaboratorInput) (Collaborator, bool, error) {
	const op = "playlists.AddCollaborator"
	switch {
	case (in.UserID == "") == (in.Username == ""):
		return Collaborator{}, false, errs.E(op, errs.Invalid, "Send exactly one of user_id or username.")
	case in.Permission != "" && in.Permission != string(PermCanEdit):
		return Collaborator{}, false, errs.Field(op, "permission", "\""+in.Permission+"\" is not a valid choice; use can_edit.")
	}
	v, err := s.Get(ctx, c, slug)
	if err != nil {
		return Collaborator{}, false, err
	}
	if v.Permission != PermOwner {
		return Collaborator{}, false, errs.E(op, errs.Forbidden, "Only the owner can share this playlist.")
	}
	u, err := s.findUser(ctx, c, in)
	if err != nil {
		return Collaborator{}, false, err
	}
	if u.ID == c.User.ID {
		return Collaborator{}, false, errs.E(op, errs.Invalid, "You own this playlist already.")
	}
	// out is what the share answers (kept for a retry under an
	// Idempotency-Key: see mutate).
	var out struct {
		Col     Collaborator
		Created bool
	}
	_, err = s.mutate(ctx, v.Playlist, mutation{
		apply: func(p *Playlist) error {
			out.Col, out.Created = Collaborator{User: u, Permission: PermCanEdit, AddedAt: s.clock.Now().UTC()}, false
			if p.PermissionOf(c.User.ID) != PermOwner {
				return notFound(op)
			}
			if i := slices.IndexFunc(p.Collaborators, func(x Collaborator) bool { return x.ID == u.ID }); i >= 0 {
				out.Col = p.Collaborators[i]
				return errUnchanged
			}
			if len(p.Collaborators) >= MaxCollaborators {
				return errs.E(op, errs.Invalid, "A playlist can be shared with at most "+strconv.Itoa(MaxCollaborators)+" users.")
			}
			p.Collaborators = append(p.Collaborators, out.Col)
			out.Created = true
			return nil
		},
		extra: func(_, after *Playlist) []store.TxOp {
			return []store.TxOp{store.TxPut(store.Playlists, viewerItem(u.ID, after), nil)}
		},
		result: &out,
	})
	if err != nil {
		return Collaborator{}, false, err
	}
	return out.Col, out.Created, nil
}

// findUser resolves the named user within the caller's partner client;
// users of other clients are as unknown as users that do not exist.
func (s *Service) findUser(ctx context.Context, c Caller, in CollaboratorInput) (User, error) {
	const op = "playlists.findUser"
	field, value := "username", strings.TrimSpace(in.Username)
	if in.UserID != "" {
		field, value = "user_id", strings.TrimSpace(in.UserID)
	}
	unknown := errs.Field(op, field, "No user \""+value+"\" in your organisation.")
	var (
		iu  identity.User
		err error
	)
	if field == "user_id" {
		id, ok := ids.CanonicalUUID(value)
		if !ok {
			return User{}, unknown
		}
		iu, err = s.users.GetUser(ctx, id)
	} else {
		iu, err = s.users.FindUserByUsername(ctx, value)
	}
	if errs.Is(err, errs.NotFound) {
		return User{}, unknown
	} else if err != nil {
		return User{}, errs.Wrap(op, err)
	}
	if iu.ClientID != c.ClientID {
		return User{}, unknown
	}
	return User{ID: iu.ID, Username: iu.Username, Name: iu.Name}, nil
}

// RemoveCollaborator stops sharing with userID: the owner removes anyone,
// a collaborator may remove themselves (leave).
func (s *Service) RemoveCollaborator(ctx context.Context, c Caller, slug, userID string) error {
	const op = "playlists.RemoveCollaborator"
	request := idempotency.RequestIDFrom(ctx)
	userID, _ = ids.CanonicalUUID(userID)
	if request != "" && userID == c.User.ID {
		// A leave under this request that committed took the playlist
		// out of the caller's sight, and its marker with it: the leave
		// also marked the caller's own rows (see extra). Looked up before
		// the slug, which may now name another playlist shared with the
		// caller.
		if _, done, ferr := idempotency.FindApplied(ctx, s.st, store.Playlists, viewerPK(c.User.ID), request); ferr != nil {
			return errs.Wrap(op, ferr)
		} else if done {
			return nil
		}
	}
	v, err := s.Get(ctx, c, slug)
	if err != nil {
		return err
	}
	if v.Permission != PermOwner && userID != c.User.ID {
		return errs.E(op, errs.Forbidden, "Only the owner can change who this playlist is shared with.")
	}
	_, err = s.mutate(ctx, v.Playlist, mutation{
		apply: func(p *Playlist) error {
			if p.PermissionOf(c.User.ID) == "" {
				return notFound(op)
			}
			i := slices.IndexFunc(p.Collaborators, func(x Collaborator) bool { return x.ID == userID })
			if i < 0 {
				return errs.E(op, errs.NotFound, "This user is not a collaborator of the playlist.")
			}
			p.Collaborators = slices.Delete(p.Collaborators, i, i+1)
			return nil
		},
		extra: func(before, after *Playlist) []store.TxOp {
			ops := []store.TxOp{store.TxDelete(store.Playlists, viewerKey(userID, before), nil)}
			if request != "" && userID == c.User.ID {
				ops = append(ops, idempotency.AppliedOp(store.Playlists, viewerPK(userID), request, after.UpdatedAt, nil))
			}
			return ops
		},
	})
	return err
}
