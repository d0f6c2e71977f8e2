package soundtrackapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/soundtrack/render"
)

// RenderService is what the render endpoints need; *render.Service
// implements it.
type RenderService interface {
	Render(ctx context.Context, p *identity.Principal, videoID string, req render.Request, base string) (render.Result, error)
	Link(ctx context.Context, videoID, key string) (string, error)
}

var _ RenderService = (*render.Service)(nil)

// renderService is the configured service, or a 501.
func (a *API) renderService() (RenderService, error) {
	if a.Render == nil {
		return nil, errs.E("httpapi.render", errs.NotImplemented, "Rendering is not available in this environment.")
	}
	return a.Render, nil
}

// soundtrackRender is POST /api/v4/soundtrack/video/{id}/download/
// (interface.md §4.1, §3.2): 202 {send_email, detail} while rendering,
// 200 {url} when built; polling repeats the same POST.
func (a *API) soundtrackRender(w http.ResponseWriter, r *http.Request) error {
	p, err := a.Authenticated(r)
	if err != nil {
		return err
	}
	if p.User == nil { // §5: a signed-in user, 401 otherwise (a partner key is not one)
		return errs.E("httpapi.soundtrackRender", errs.Unauthenticated, "Rendering needs a signed-in user: send a user token.")
	}
	svc, err := a.renderService()
	if err != nil {
		return err
	}
	req, err := readRenderRequest(r)
	if err != nil {
		return err
	}
	res, err := svc.Render(r.Context(), p, r.PathValue("id"), req, a.PublicBase(r))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	if res.Ready {
		httpapi.WriteJSON(w, http.StatusOK, map[string]string{"url": res.URL})
		return nil
	}
	httpapi.WriteJSON(w, http.StatusAccepted, map[string]any{"send_email": res.SendEmail, "detail": render.MsgPreparing})
	return nil
}

// soundtrackRenderLink is GET /api/v4/soundtrack/video/{id}/download/{key}/,
// the link a render's email carries: 302 to a fresh signed URL of the
// built render, 404 once the video expired. The key (a hash of the video
// id and the parameters) is the capability; it grants nothing the render
// POST would not.
func (a *API) soundtrackRenderLink(w http.ResponseWriter, r *http.Request) error {
	svc, err := a.renderService()
	if err != nil {
		return err
	}
	// Ids and keys are hex: any case names the same render, as license ids do.
	u, err := svc.Link(r.Context(), strings.ToLower(r.PathValue("id")), strings.ToLower(r.PathValue("key")))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u, http.StatusFound)
	return nil
}

// readRenderRequest reads the body; every field that is not of its type
// is named (400 {field: [...]}), then render.Params.Validate checks ranges.
func readRenderRequest(r *http.Request) (render.Request, error) {
	const op = "httpapi.readRenderRequest"
	req := render.Request{Params: render.Params{VideoVolume: render.DefaultVolume, TrackVolume: render.DefaultVolume}}
	var raw map[string]json.RawMessage
	if empty, err := httpapi.BodyEmpty(r); err != nil {
		return req, err
	} else if !empty {
		if err := httpapi.DecodeJSON(r, &raw); err != nil {
			return req, err
		}
	}
	fields := map[string][]string{}
	str := func(name string, dst *string) {
		if v, ok := raw[name]; ok && string(v) != "null" {
			if json.Unmarshal(v, dst) != nil {
				fields[name] = []string{"Must be a string (a UUID)."}
			}
		}
	}
	number := func(name string, dst *float64, msg string) {
		if v, ok := raw[name]; ok && string(v) != "null" {
			if json.Unmarshal(v, dst) != nil {
				fields[name] = []string{msg}
			}
		}
	}
	str("track_id", &req.TrackID)
	number("video_volume", &req.VideoVolume, "Must be a number from 0.0 to 1.0.")
	number("track_volume", &req.TrackVolume, "Must be a number from 0.0 to 1.0.")
	number("track_start", &req.TrackStart, "Must be a number of seconds, 0 or more.")
	if v, ok := raw["send_email"]; ok && string(v) != "null" {
		if json.Unmarshal(v, &req.SendEmail) != nil {
			fields["send_email"] = []string{"Must be a valid boolean (true or false)."}
		}
	}
	if err := req.Validate(); err != nil {
		if e, ok := err.(*errs.Error); ok {
			for k, v := range e.Fields {
				if fields[k] == nil {
					fields[k] = v
				}
			}
		}
	}
	if len(fields) > 0 {
		return req, &errs.Error{Op: op, Kind: errs.Invalid, Fields: fields}
	}
	return req, nil
}
