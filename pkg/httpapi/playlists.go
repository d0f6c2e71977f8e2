package httpapi

// Playlist endpoints (interface.md §4.7, §5; gaps.md "Playlists") and the
// track listing by playlist (§4.3). Every call needs a signed-in user
// token; a playlist the caller cannot see is 404 whatever its existence,
// one they see but may not change in that way is 403.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/playlists"
)

// PlaylistsService is what the playlist endpoints need; *playlists.Service
// implements it.
type PlaylistsService interface {
	List(ctx context.Context, c playlists.Caller, limit, offset int) ([]playlists.View, int, error)
	Create(ctx context.Context, c playlists.Caller, in playlists.CreateInput) (playlists.View, playlists.ItemsResult, error)
	Get(ctx context.Context, c playlists.Caller, slug string) (playlists.View, error)
	Update(ctx context.Context, c playlists.Caller, slug string, in playlists.UpdateInput) (playlists.View, error)
	Delete(ctx context.Context, c playlists.Caller, slug string) error
	ChangeItems(ctx context.Context, c playlists.Caller, slug string, add bool, in playlists.ItemsInput) (playlists.ItemsResult, error)
	Reorder(ctx context.Context, c playlists.Caller, slug string, in playlists.ReorderInput) (int, error)
	Collaborators(ctx context.Context, c playlists.Caller, slug string) ([]playlists.Collaborator, error)
	AddCollaborator(ctx context.Context, c playlists.Caller, slug string, in playlists.CollaboratorInput) (playlists.Collaborator, bool, error)
	RemoveCollaborator(ctx context.Context, c playlists.Caller, slug, userID string) error
	TrackIDs(ctx context.Context, c playlists.Caller, slug string) ([]string, error)
	ImageURLs(ctx context.Context, im *playlists.Image) (map[string]string, error)
}

// playlistUpdateBody caps a PATCH/PUT: the 10 MB image plus the form's
// framing and text fields.
const playlistUpdateBody = playlists.MaxImageBytes + 1_000_000

const playlistsPath = "/api/v4/me/playlists/"

func (a *API) mountPlaylists(rt *Router) {
	rt.Handle("GET "+playlistsPath, NoBody, a.playlistList)
	rt.Handle("POST "+playlistsPath, MaxJSONBody, AuthFirst(a.signedIn, a.Idempotent(a.playlistCreate)))
	rt.Handle("GET "+playlistsPath+"{slug}/", NoBody, a.playlistRetrieve)
	// Changes take an Idempotency-Key too: a retry of one whose write
	// committed but whose answer was lost gets the committed answer, and
	// the change is not applied twice (playlists' mutate keeps a marker).
	rt.Handle("PATCH "+playlistsPath+"{slug}/", playlistUpdateBody, AuthFirst(a.signedIn, a.Idempotent(a.playlistUpdate)))
	rt.Handle("PUT "+playlistsPath+"{slug}/", playlistUpdateBody, AuthFirst(a.signedIn, a.Idempotent(a.playlistUpdate)))
	rt.Handle("DELETE "+playlistsPath+"{slug}/", NoBody, AuthFirst(a.signedIn, a.Idempotent(a.playlistDelete)))
	rt.Handle("POST "+playlistsPath+"{slug}/tracks/", MaxJSONBody, AuthFirst(a.signedIn, a.Idempotent(a.playlistItems)))
	rt.Handle("POST "+playlistsPath+"{slug}/tracks/reorder/", MaxJSONBody, AuthFirst(a.signedIn, a.Idempotent(a.playlistReorder)))
	rt.Handle("GET "+playlistsPath+"{slug}/collaborators/", NoBody, a.collaboratorList)
	rt.Handle("POST "+playlistsPath+"{slug}/collaborators/", MaxJSONBody, AuthFirst(a.signedIn, a.Idempotent(a.collaboratorAdd)))
	rt.Handle("DELETE "+playlistsPath+"{slug}/collaborators/{user_id}/", NoBody, AuthFirst(a.signedIn, a.Idempotent(a.collaboratorRemove)))
	// The listing shares its shape with the stream proxy's path
	// (/api/v4/stream/tracks/ would match both): the stream route wins.
	rt.HandleSecondary("GET /api/v4/{language}/tracks/", NoBody, a.playlistTracks)
}

// playlistCaller authenticates a signed-in user, applies the rate limit
// (§7.2 429) and returns who acts.
func (a *API) playlistCaller(r *http.Request) (playlists.Caller, error) {
	p, err := a.SignedInUser(r)
	if err != nil {
		return playlists.Caller{}, err
	}
	if err := a.Throttle(r, p); err != nil {
		return playlists.Caller{}, err
	}
	return callerOf(p), nil
}

// signedIn is SignedInUser as an AuthFirst rule (not throttled: the
// handler's playlistCaller counts the request once).
func (a *API) signedIn(r *http.Request) error {
	_, err := a.SignedInUser(r)
	return err
}

// playlistRequest is the prologue every playlist handler shares, in the
// order their errors take precedence: the caller is authenticated and
// throttled, then read (nil when there is nothing to read) checks the body
// or query, then the backend is resolved.
func playlistRequest[T any](a *API, r *http.Request, read func(*http.Request) (T, error)) (playlists.Caller, T, PlaylistsService, error) {
	var in T
	c, err := a.playlistCaller(r)
	if err != nil {
		return c, in, nil, err
	}
	if read != nil {
		if in, err = read(r); err != nil {
			return c, in, nil, err
		}
	}
	svc, err := a.playlistsBackend()
	return c, in, svc, err
}

// playlistSession is playlistRequest for a call that reads nothing.
func (a *API) playlistSession(r *http.Request) (playlists.Caller, PlaylistsService, error) {
	c, _, svc, err := playlistRequest[struct{}](a, r, nil)
	return c, svc, err
}

// decodeAs decodes the JSON body into a new T (DecodeJSON's errors).
func decodeAs[T any](r *http.Request) (T, error) {
	var v T
	err := DecodeJSON(r, &v)
	return v, err
}

func callerOf(p *identity.Principal) playlists.Caller {
	return playlists.Caller{
		User:     playlists.User{ID: p.User.ID, Username: p.User.Username, Name: p.User.Name},
		ClientID: p.Client.ID, Plan: string(p.Client.Plan), SFX: p.Client.SFXEnabled,
	}
}

func (a *API) playlistsBackend() (PlaylistsService, error) {
	if a.Playlists == nil {
		return nil, errs.E("httpapi.playlists", errs.Unavailable, "Playlists are not available in this environment.")
	}
	return a.Playlists, nil
}

type ownerJSON struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Name     string `json:"name"`
}

type collaboratorJSON struct {
	ID         string `json:"id"`
	Username   string `json:"username"`
	Permission string `json:"permission"`
}

// playlistSlimJSON is the list shape of §2.7.
type playlistSlimJSON struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	Slug          string            `json:"slug"`
	Description   string            `json:"description"`
	Owner         ownerJSON         `json:"owner"`
	Permission    string            `json:"permission"`
	URL           string            `json:"url"`
	Blurhash      *string           `json:"blurhash"`
	AllImageSizes map[string]string `json:"all_image_sizes"`
	CreatedAt     string            `json:"created_at"`
	UpdatedAt     string            `json:"updated_at"`
}

// playlistJSON is the full Playlist of §2.7 (retrieve, create, update).
type playlistJSON struct {
	playlistSlimJSON
	PlaylistType  string             `json:"playlist_type"`
	Tracks        int                `json:"tracks"`
	Duration      int                `json:"duration"`
	Collaborators []collaboratorJSON `json:"collaborators"`
}

func (a *API) playlistSlim(ctx context.Context, svc PlaylistsService, v playlists.View) (playlistSlimJSON, error) {
	out := playlistSlimJSON{
		ID: v.ID, Name: v.Name, Slug: v.Slug, Description: v.Description,
		Owner:      ownerJSON{v.Owner.ID, v.Owner.Username, v.Owner.Name},
		Permission: string(v.Permission), URL: playlistsPath + v.Path + "/",
		CreatedAt: v.CreatedAt.UTC().Format(time.RFC3339Nano), UpdatedAt: v.UpdatedAt.UTC().Format(time.RFC3339Nano),
	}
	if v.Image != nil {
		sizes, err := svc.ImageURLs(ctx, v.Image)
		if err != nil {
			return out, err
		}
		out.Blurhash, out.AllImageSizes = &v.Image.Blurhash, sizes
	}
	return out, nil
}

func (a *API) playlistFull(ctx context.Context, svc PlaylistsService, v playlists.View) (playlistJSON, error) {
	slim, err := a.playlistSlim(ctx, svc, v)
	out := playlistJSON{playlistSlimJSON: slim, PlaylistType: "user", Tracks: v.Tracks(), Duration: v.Duration(),
		Collaborators: collaboratorsJSON(v.Collaborators)}
	return out, err
}

func collaboratorsJSON(cs []playlists.Collaborator) []collaboratorJSON {
	out := make([]collaboratorJSON, 0, len(cs))
	for _, c := range cs {
		out = append(out, collaboratorJSON{c.ID, c.Username, string(c.Permission)})
	}
	return out
}

func (a *API) playlistList(w http.ResponseWriter, r *http.Request) error {
	c, pg, svc, err := playlistRequest(a, r, func(r *http.Request) (PageParams, error) {
		return ParsePage(r, playlists.DefaultListLimit, playlists.MaxListLimit)
	})
	if err != nil {
		return err
	}
	views, total, err := svc.List(r.Context(), c, pg.Limit, pg.Offset)
	if err != nil {
		return err
	}
	out := Page[playlistSlimJSON]{Count: total, Results: make([]playlistSlimJSON, 0, len(views))}
	for _, v := range views {
		slim, err := a.playlistSlim(r.Context(), svc, v)
		if err != nil {
			return err
		}
		out.Results = append(out.Results, slim)
	}
	out.Next, out.Previous = a.PageLinks(r, pg, pg.Offset+pg.Limit < total)
	w.Header().Set("Cache-Control", "private, no-store")
	WriteJSON(w, http.StatusOK, out)
	return nil
}

// itemsBody is a create or add/remove body (fields flat, so that a type
// error names the field as the client wrote it).
type itemsBody struct {
	Name        *string  `json:"name"`
	Description *string  `json:"description"`
	Action      *string  `json:"action"`
	Tracks      []string `json:"tracks"`
	Stems       []string `json:"stems"`
	SoundFXs    []string `json:"soundfxs"`
}

func (b itemsBody) input() playlists.ItemsInput {
	return playlists.ItemsInput{Tracks: b.Tracks, Stems: b.Stems, SoundFXs: b.SoundFXs}
}

// nonNilIDs keeps JSON arrays of the item results arrays even when empty.
func nonNilIDs(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (a *API) playlistCreate(w http.ResponseWriter, r *http.Request) error {
	c, body, svc, err := playlistRequest(a, r, decodeAs[itemsBody])
	if err != nil {
		return err
	}
	in := playlists.CreateInput{Items: body.input(), RequestID: idempotency.RequestIDFrom(r.Context())}
	if body.Name != nil {
		in.Name = *body.Name
	}
	if body.Description != nil {
		in.Description = *body.Description
	}
	v, res, err := svc.Create(r.Context(), c, in)
	if err != nil {
		return err
	}
	full, err := a.playlistFull(r.Context(), svc, v)
	if err != nil {
		return err
	}
	w.Header().Set("Location", full.URL)
	WriteJSON(w, http.StatusCreated, struct {
		Success    bool         `json:"success"`
		Playlist   playlistJSON `json:"playlist"`
		Skipped    []string     `json:"skipped"`
		Duplicated []string     `json:"duplicated"`
	}{true, full, nonNilIDs(res.Skipped), nonNilIDs(res.Duplicated)})
	return nil
}

func (a *API) writePlaylist(w http.ResponseWriter, r *http.Request, svc PlaylistsService, v playlists.View) error {
	full, err := a.playlistFull(r.Context(), svc, v)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "private, no-store")
	WriteJSON(w, http.StatusOK, full)
	return nil
}

func (a *API) playlistRetrieve(w http.ResponseWriter, r *http.Request) error {
	c, svc, err := a.playlistSession(r)
	if err != nil {
		return err
	}
	v, err := svc.Get(r.Context(), c, r.PathValue("slug"))
	if err != nil {
		return err
	}
	return a.writePlaylist(w, r, svc, v)
}

func (a *API) playlistUpdate(w http.ResponseWriter, r *http.Request) error {
	c, in, svc, err := playlistRequest(a, r, readUpdate)
	if err != nil {
		return err
	}
	v, err := svc.Update(r.Context(), c, r.PathValue("slug"), in)
	if err != nil {
		return err
	}
	return a.writePlaylist(w, r, svc, v)
}

// readUpdate reads a JSON or multipart update body.
func readUpdate(r *http.Request) (playlists.UpdateInput, error) {
	const op = "httpapi.readUpdate"
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		var body struct {
			Name        *string          `json:"name"`
			Description *string          `json:"description"`
			Image       *json.RawMessage `json:"image"`
		}
		var raw bytes.Buffer // the body as read, to tell a null from an absent field
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(r.Body, &raw), r.Body}
		if err := DecodeJSON(r, &body); err != nil {
			return playlists.UpdateInput{}, err
		}
		if body.Image != nil {
			return playlists.UpdateInput{}, errs.Field(op, "image", "Send the image as a file in a multipart/form-data body.")
		}
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(raw.Bytes(), &fields) // decoded above: a JSON object or empty
		var nulls error
		for _, f := range []string{"name", "description", "image"} {
			for k, v := range fields { // in any case, as the decoder matched them
				if strings.EqualFold(k, f) && string(bytes.TrimSpace(v)) == "null" {
					// null would read as "absent" and change nothing while answering 200
					nulls = MergeFieldErrors(nulls, errs.Field(op, f, "This field may not be null."))
					break
				}
			}
		}
		if nulls != nil {
			return playlists.UpdateInput{}, nulls
		}
		return playlists.UpdateInput{Name: body.Name, Description: body.Description}, nil
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return playlists.UpdateInput{}, errs.E(op, errs.Invalid, "Malformed multipart body.")
	}
	var in playlists.UpdateInput
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return in, nil
		}
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return in, err
			}
			return in, errs.E(op, errs.Invalid, "Malformed multipart body.")
		}
		name := part.FormName()
		limit := int64(playlists.MaxDescription * 4)
		if name == "image" {
			limit = playlists.MaxImageBytes
		}
		data, err := io.ReadAll(io.LimitReader(part, limit+1))
		part.Close()
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return in, err
			}
			return in, errs.E(op, errs.Invalid, "Malformed multipart body.")
		}
		if int64(len(data)) > limit {
			if name == "image" {
				return in, errs.Field(op, "image", "The image is larger than 10 MB.")
			}
			return in, errs.Field(op, name, "This field is too long.")
		}
		switch name {
		case "image":
			in.Image = bytes.Clone(data)
			if in.Image == nil {
				in.Image = []byte{}
			}
		case "name":
			s := string(data)
			in.Name = &s
		case "description":
			s := string(data)
			in.Description = &s
		}
	}
}

func (a *API) playlistDelete(w http.ResponseWriter, r *http.Request) error {
	c, svc, err := a.playlistSession(r)
	if err != nil {
		return err
	}
	if err := svc.Delete(r.Context(), c, r.PathValue("slug")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (a *API) playlistItems(w http.ResponseWriter, r *http.Request) error {
	c, ch, svc, err := playlistRequest(a, r, readItemsChange)
	if err != nil {
		return err
	}
	res, err := svc.ChangeItems(r.Context(), c, r.PathValue("slug"), ch.add, ch.items)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, struct {
		Success    bool     `json:"success"`
		Added      int      `json:"added"`
		Removed    int      `json:"removed"`
		Skipped    []string `json:"skipped"`
		Duplicated []string `json:"duplicated"`
	}{true, res.Added, res.Removed, nonNilIDs(res.Skipped), nonNilIDs(res.Duplicated)})
	return nil
}

// itemsChange is an add/remove body: whether it adds, and the items.
type itemsChange struct {
	add   bool
	items playlists.ItemsInput
}

func readItemsChange(r *http.Request) (itemsChange, error) {
	const op = "httpapi.playlistItems"
	body, err := decodeAs[itemsBody](r)
	if err != nil {
		return itemsChange{}, err
	}
	ch := itemsChange{items: body.input()}
	switch {
	case body.Action == nil:
		return ch, errs.Field(op, "action", "This field is required.")
	case *body.Action == "add":
		ch.add = true
	case *body.Action == "delete":
	default:
		return ch, errs.Field(op, "action", "\""+*body.Action+"\" is not a valid choice; use add or delete.")
	}
	return ch, nil
}

func (a *API) playlistReorder(w http.ResponseWriter, r *http.Request) error {
	c, in, svc, err := playlistRequest(a, r, readReorder)
	if err != nil {
		return err
	}
	total, err := svc.Reorder(r.Context(), c, r.PathValue("slug"), in)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, struct {
		Success    bool `json:"success"`
		TotalItems int  `json:"total_items"`
	}{true, total})
	return nil
}

// readReorder reads one of the three reorder bodies (playlists.ReorderInput):
// gaps.md's {items: [{id, type}], offset}, the full order
// {items: [id, ...]}, or {item: id, position: n}.
func readReorder(r *http.Request) (playlists.ReorderInput, error) {
	const op = "httpapi.readReorder"
	var body struct {
		Items    json.RawMessage `json:"items"`
		Offset   *int            `json:"offset"`
		Item     *string         `json:"item"`
		Position *int            `json:"position"`
	}
	if err := DecodeJSON(r, &body); err != nil {
		return playlists.ReorderInput{}, err
	}
	var in playlists.ReorderInput
	hasItems := len(body.Items) > 0 && string(body.Items) != "null"
	if body.Item != nil {
		if hasItems {
			return in, errs.E(op, errs.Invalid, "Send either items or item with position, not both.")
		}
		if _, ok := ids.CanonicalUUID(*body.Item); !ok {
			return in, errs.Field(op, "item", "Must be a valid UUID.")
		}
		if body.Position == nil {
			return in, errs.Field(op, "position", "This field is required.")
		}
		in.Item, in.Position = *body.Item, *body.Position
		return in, nil
	}
	if !hasItems {
		return in, errs.Field(op, "items", "This field is required.")
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(body.Items, &elems); err != nil {
		return in, errs.Field(op, "items", "Must be a list.")
	}
	if len(elems) == 0 {
		return in, errs.Field(op, "items", "This list may not be empty.")
	}
	if bytes.HasPrefix(bytes.TrimSpace(elems[0]), []byte(`"`)) {
		order := make([]string, 0, len(elems))
		for _, e := range elems {
			var id string
			if json.Unmarshal(e, &id) != nil {
				return in, errs.Field(op, "items", "Send either all ids or all {id, type} objects.")
			}
			order = append(order, id)
		}
		if len(order) > playlists.MaxItems {
			return in, errs.Field(op, "items", "Ensure this list has no more than "+strconv.Itoa(playlists.MaxItems)+" elements.")
		}
		in.Order = order
		return in, nil
	}
	if len(elems) > playlists.MaxReorderItems {
		return in, errs.Field(op, "items", "Ensure this list has no more than "+strconv.Itoa(playlists.MaxReorderItems)+" elements.")
	}
	var bad []string
	for i, e := range elems {
		var it struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		}
		err := json.Unmarshal(e, &it)
		id, ok := ids.CanonicalUUID(it.ID)
		switch {
		case err != nil:
			bad = append(bad, "Item "+strconv.Itoa(i)+": expected {\"id\": UUID, \"type\": \"track|soundfx|stem\"}.")
		case !ok:
			bad = append(bad, "Item "+strconv.Itoa(i)+": id must be a valid UUID.")
		case !playlists.Kind(it.Type).Valid():
			bad = append(bad, "Item "+strconv.Itoa(i)+": type must be track, soundfx or stem.")
		default:
			in.Move = append(in.Move, playlists.Ref{Kind: playlists.Kind(it.Type), ID: id})
		}
	}
	if len(bad) > 0 {
		return in, &errs.Error{Op: op, Kind: errs.Invalid, Fields: map[string][]string{"items": bad}}
	}
	if body.Offset == nil {
		return in, errs.Field(op, "offset", "This field is required.")
	}
	in.Offset = *body.Offset
	return in, nil
}

func (a *API) collaboratorList(w http.ResponseWriter, r *http.Request) error {
	c, svc, err := a.playlistSession(r)
	if err != nil {
		return err
	}
	cs, err := svc.Collaborators(r.Context(), c, r.PathValue("slug"))
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, struct {
		Count   int                `json:"count"`
		Results []collaboratorJSON `json:"results"`
	}{len(cs), collaboratorsJSON(cs)})
	return nil
}

func (a *API) collaboratorAdd(w http.ResponseWriter, r *http.Request) error {
	c, body, svc, err := playlistRequest(a, r, decodeAs[struct {
		UserID     string `json:"user_id"`
		Username   string `json:"username"`
		Permission string `json:"permission"`
	}])
	if err != nil {
		return err
	}
	col, created, err := svc.AddCollaborator(r.Context(), c, r.PathValue("slug"),
		playlists.CollaboratorInput{UserID: body.UserID, Username: body.Username, Permission: body.Permission})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		// 201: the collaborator's address (its DELETE)
		w.Header().Set("Location", playlistsPath+r.PathValue("slug")+"/collaborators/"+col.ID+"/")
	}
	WriteJSON(w, status, collaboratorJSON{col.ID, col.Username, string(col.Permission)})
	return nil
}

func (a *API) collaboratorRemove(w http.ResponseWriter, r *http.Request) error {
	c, svc, err := a.playlistSession(r)
	if err != nil {
		return err
	}
	if err := svc.RemoveCollaborator(r.Context(), c, r.PathValue("slug"), r.PathValue("user_id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// playlistTracks is GET /api/v4/{locale}/tracks/?user_playlist={slug}
// (§4.3): the playlist's tracks as Track objects, in playlist order, for
// its owner and collaborators, with genre, subgenre and moods in {locale}
// as track detail translates them. Tracks the caller's plan no longer sees
// (or gone from the catalog) are left out.
func (a *API) playlistTracks(w http.ResponseWriter, r *http.Request) error {
	const op = "httpapi.playlistTracks"
	locale, ok := catalog.CanonicalLocale(r.PathValue("language"))
	if !ok {
		return errs.E(op, errs.NotFound, "Unknown language code \""+r.PathValue("language")+"\".")
	}
	var pg PageParams
	c, slug, svc, err := playlistRequest(a, r, func(r *http.Request) (string, error) {
		slug := r.URL.Query().Get("user_playlist")
		var perr error
		pg, perr = ParsePage(r, TrackListDefaultLimit, TrackListMaxLimit)
		if slug == "" {
			perr = MergeFieldErrors(perr, errs.Field(op, "user_playlist", "This field is required."))
		}
		perr = MergeFieldErrors(perr, Repeated(op, r.URL.Query(), "user_playlist"))
		return slug, perr
	})
	if err != nil {
		return err
	}
	trackIDs, err := svc.TrackIDs(r.Context(), c, slug)
	if err != nil {
		return err
	}
	cat, err := a.currentCatalog(r.Context())
	if err != nil {
		return err
	}
	var tracks []*catalog.Track
	for _, id := range trackIDs {
		if t, ok := cat.Track(id); ok && catalog.Visible(c.Plan, t) {
			tracks = append(tracks, t)
		}
	}
	out := Page[TrackJSON]{Count: len(tracks), Results: []TrackJSON{}}
	langs := map[string]bool{}
	for _, t := range tracks[min(pg.Offset, len(tracks)):min(len(tracks), pg.Offset+pg.Limit)] {
		out.Results = append(out.Results, a.LocalizedTrackJSON(t, locale))
		langs[t.Language(locale)] = true
	}
	out.Next, out.Previous = a.PageLinks(r, pg, pg.Offset+pg.Limit < len(tracks))
	if len(langs) == 1 { // the page's texts are in one language, as track detail says
		for l := range langs {
			w.Header().Set("Content-Language", l)
		}
	}
	w.Header().Set("Cache-Control", "private, no-store")
	WriteJSON(w, http.StatusOK, out)
	return nil
}
