package httpapi

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"strings"
	"time"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/licensing"
)

// The public license page (gaps.md: the proof a channel owner submits
// against a Content ID claim) at {LicensePageBase}/v/{license_id}, and
// the same facts as JSON at /v/{license_id}.json.

//go:embed templates/license.html
var licenseTemplates embed.FS

var licensePageTmpl = template.Must(template.ParseFS(licenseTemplates, "templates/license.html"))

// ServiceName names the registry on the public page.
const ServiceName = "Music Catalog"

// Cache rules: a license never changes, so its page is cached for a year
// by anyone; an unknown id may be issued later, so its 404 is not kept.
const (
	cacheImmutable = "public, max-age=31536000, immutable"
	cacheNotFound  = "no-store"
	// The page loads nothing but its own inline style.
	licensePageCSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

type licensePageData struct {
	Found       bool
	Expired     bool
	License     licensing.License
	RequestedID string
	ServiceName string
	PageURL     string
	JSONURL     string
	Statement   string
	CreatedISO  string
	CreatedText string
	ExpiresISO  string
	ExpiresText string
}

// publicLicenseJSON is the machine-readable page.
type publicLicenseJSON struct {
	LicenseID   string  `json:"license_id"`
	Status      string  `json:"status"`
	TrackID     string  `json:"track_id"`
	TrackName   string  `json:"track_name"`
	ArtistName  string  `json:"artist_name"`
	Licensee    string  `json:"licensee"`
	ProjectName *string `json:"project_name"`
	IssuedBy    string  `json:"issued_by"`
	CreatedAt   string  `json:"created_at"`
	ExpiresAt   *string `json:"expires_at"`
	PageURL     string  `json:"page_url"`
	Statement   string  `json:"verification_statement"`
}

// pageBase is where license pages live: LicensePageBase, else this
// server at its public base (never the Host header the client sent).
func (a *API) pageBase(r *http.Request) string {
	if a.LicensePageBase != "" {
		return strings.TrimRight(a.LicensePageBase, "/")
	}
	return a.publicBase(r)
}

func humanTime(t time.Time) string { return t.UTC().Format("2 January 2006, 15:04 MST") }

func statement(l licensing.License) string {
	return "This license is recorded in the " + ServiceName + " license registry. " + l.ClientName +
		" issued it on " + l.CreatedAt.UTC().Format("2 January 2006") + " to " + l.UserID +
		" for the track “" + l.TrackName + "” by " + l.ArtistName + ". The registry serves this page; its contents cannot be changed."
}

func (a *API) licensePage(w http.ResponseWriter, r *http.Request) error {
	id, asJSON := strings.CutSuffix(r.PathValue("license_id"), ".json")
	// `format` negotiates the content type (§9): format=json is the .json form.
	asJSON = asJSON || r.URL.Query().Get("format") == "json"
	l, err := a.Licenses.Public(r.Context(), id)
	notFound := errs.KindOf(err) == errs.NotFound
	if err != nil && !notFound {
		return err
	}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if notFound {
		h.Set("Cache-Control", cacheNotFound)
	} else {
		h.Set("Cache-Control", cacheImmutable)
	}
	pageURL := a.pageBase(r) + "/v/" + l.ID
	if asJSON {
		if notFound {
			return err
		}
		WriteJSON(w, http.StatusOK, toPublicLicense(l, pageURL, a.Clock.Now()))
		return nil
	}
	d := licensePageData{Found: !notFound, License: l, RequestedID: id, ServiceName: ServiceName,
		PageURL: pageURL, JSONURL: pageURL + ".json"}
	status := http.StatusNotFound
	if d.Found {
		status = http.StatusOK
		d.Statement, d.Expired = statement(l), expired(l, a.Clock.Now())
		d.CreatedISO, d.CreatedText = l.CreatedAt.UTC().Format(time.RFC3339), humanTime(l.CreatedAt)
		if l.ExpiresAt != nil {
			d.ExpiresISO, d.ExpiresText = l.ExpiresAt.UTC().Format(time.RFC3339), humanTime(*l.ExpiresAt)
		}
	}
	var buf bytes.Buffer
	if err := licensePageTmpl.Execute(&buf, d); err != nil {
		return errs.Wrap("httpapi.licensePage", err)
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", licensePageCSP)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
	return nil
}

// expired reports whether a license with a fixed expiry has passed it.
func expired(l licensing.License, now time.Time) bool {
	return l.ExpiresAt != nil && !now.Before(*l.ExpiresAt)
}

func toPublicLicense(l licensing.License, pageURL string, now time.Time) publicLicenseJSON {
	j := toLicenseJSON(l)
	status := "valid"
	if expired(l, now) {
		status = "expired"
	}
	return publicLicenseJSON{LicenseID: l.ID, Status: status, TrackID: l.TrackID, TrackName: l.TrackName,
		ArtistName: l.ArtistName, Licensee: l.UserID, ProjectName: j.ProjectName, IssuedBy: l.ClientName,
		CreatedAt: j.CreatedAt, ExpiresAt: j.ExpiresAt, PageURL: pageURL, Statement: statement(l)}
}
