package downloads

import (
	"fmt"
	"slices"
	"strings"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/errs"
)

// Formats a rendition can be downloaded in (§4.4).
const (
	FormatMP3 = "mp3"
	FormatWAV = "wav"
)

// DefaultFormat is what a request without formats gets (§4.4: `[mp3]`).
const DefaultFormat = FormatMP3

// Request is one download request, from the POST body or the GET query.
type Request struct {
	// Type is the asset kind: track, soundfx or stem; it must match the asset.
	Type string
	// Formats are the asked formats; nil means [mp3]. Duplicates count once.
	Formats []string
	// FormatsSent is true when the caller sent formats at all, so that an
	// explicitly empty list is an error rather than the default.
	FormatsSent bool
	// FormatField names the formats in field errors: "format" in the POST
	// body, "fmt" in the GET query (where `format` is reserved, §9).
	FormatField        string
	IncludeStems       bool
	ConfirmPersonalUse bool
	// Probe answers the request without counting it: a HEAD, which
	// downloads nothing (link checkers, browsers probing a link).
	Probe bool
}

// normalized validates r and returns it with its formats defaulted,
// deduplicated and in a fixed order (mp3, wav), or one 400 naming every
// bad field (§7.2).
func (r Request) normalized() (Request, error) {
	const op = "downloads.Request"
	if r.FormatField == "" {
		r.FormatField = "format"
	}
	fields := map[string][]string{}
	switch {
	case r.Type == "":
		fields["type"] = []string{"This field is required; use track, soundfx or stem."}
	case !catalog.ValidKind(r.Type):
		fields["type"] = []string{fmt.Sprintf("%q is not a valid choice; use track, soundfx or stem.", r.Type)}
	}
	var formats []string
	for _, f := range r.Formats {
		f = strings.ToLower(strings.TrimSpace(f))
		if f != FormatMP3 && f != FormatWAV {
			fields[r.FormatField] = append(fields[r.FormatField], fmt.Sprintf("%q is not a valid choice; use mp3 or wav.", f))
			continue
		}
		if !slices.Contains(formats, f) {
			formats = append(formats, f)
		}
	}
	if len(r.Formats) == 0 {
		if r.FormatsSent {
			fields[r.FormatField] = []string{"Choose at least one of mp3 or wav."}
		}
		formats = []string{DefaultFormat}
	}
	slices.Sort(formats) // mp3, wav: one request, one normalized form
	if r.IncludeStems && r.Type != catalog.KindTrack && catalog.ValidKind(r.Type) {
		fields["include_stems"] = []string{"Stems can only be included for type track."}
	}
	if len(fields) > 0 {
		return Request{}, &errs.Error{Op: op, Kind: errs.Invalid, Fields: fields}
	}
	r.Formats = formats
	return r, nil
}

// Validate returns the 400 naming every bad field of r, or nil.
func (r Request) Validate() error {
	_, err := r.normalized()
	return err
}

// zip reports whether r asks for the ZIP flow of §3.2.
func (r Request) zip() bool { return len(r.Formats) > 1 || r.IncludeStems }
