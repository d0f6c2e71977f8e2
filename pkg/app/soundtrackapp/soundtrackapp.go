// Package soundtrackapp wires the soundtrack group (interface.md §4.1):
// the soundtrack service, with the video analysis and the catalog's
// fingerprints, and its endpoints. The search group uses the same service
// for the media of by-url and by-video.
package soundtrackapp

import (
	"log/slog"
	"os/exec"

	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/blob/s3blob"
	"musiccatalog/pkg/catalog/fpindex"
	"musiccatalog/pkg/fetch"
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/httpapi/soundtrackapi"
	"musiccatalog/pkg/soundtrack"
	"musiccatalog/pkg/soundtrack/render"
	"musiccatalog/pkg/soundtrack/videoanalysis"
)

// VideoFetcher is the yt-dlp adapter when yt-dlp is installed (YTDLP_PATH,
// default "yt-dlp" on PATH; a layer's /opt/bin/yt-dlp in Lambda), else nil:
// links cannot be fetched here and the calls that need it answer 501.
func VideoFetcher(cfg core.Config) soundtrack.VideoFetcher {
	path, err := exec.LookPath(cfg.YTDLPPath)
	if err != nil {
		return nil
	}
	return &fetch.YTDLP{Path: path, FFmpegPath: cfg.FFmpegPath, Guard: &fetch.Guard{}, Timeout: cfg.YTDLPTimeout}
}

// New wires the soundtrack service on link fetcher f (nil without object
// storage, where uploads have nowhere to go). fps is the catalog's
// fingerprint index, shared with recognition where a process has both.
func New(c *core.Core, fps *fpindex.Index, f soundtrack.VideoFetcher) *soundtrack.Service {
	if c.Blob == nil {
		return nil
	}
	if f == nil {
		c.Log.Info("yt-dlp not found: soundtrack and search links cannot be fetched", "ytdlp_path", c.Config.YTDLPPath)
	}
	svc, err := soundtrack.New(soundtrack.Config{
		Store: c.Store, Blob: c.Blob, Clock: c.Clock, Log: c.Log, Fetcher: f,
		Analyzer: videoanalysis.Analyzer{FFmpegPath: c.Config.FFmpegPath, Identifier: identifier(c, fps)},
	})
	if err != nil {
		c.Log.Error("soundtrack service", slog.Any("error", err)) // only missing dependencies, excluded above
		return nil
	}
	return svc
}

// identifier matches videos against the catalog's fingerprints (nil
// without a catalog); it loads the index once per catalog version.
func identifier(c *core.Core, fps *fpindex.Index) soundtrack.Identifier {
	if c.Catalog == nil {
		return nil
	}
	return &soundtrack.FingerprintIdentifier{Catalog: c.Catalog, Index: fps}
}

// Mount adds the soundtrack endpoints over svc (nil: they answer 501).
func Mount(a *httpapi.API, svc *soundtrack.Service, directUploadMax int64) {
	MountWithRender(a, svc, nil, directUploadMax)
}

// MountWithRender adds the soundtrack endpoints over svc and the render
// endpoints over r (nil: they answer 501).
func MountWithRender(a *httpapi.API, svc *soundtrack.Service, r *render.Service, directUploadMax int64) {
	h := &soundtrackapi.API{API: a, SoundtrackDirectUploadMax: directUploadMax}
	if svc != nil { // a nil *Service in the interface would not read as "none"
		h.Soundtrack = svc
	}
	if r != nil {
		h.Render = r
	}
	a.Mounts[httpapi.GroupSoundtrack] = h.Mount
}

// Wiring is the api-soundtrack function's.
var Wiring = core.Wiring{Blob: s3blob.Open, Mount: func(c *core.Core, a *httpapi.API) error {
	Mount(a, New(c, &fpindex.Index{Blob: c.Blob}, VideoFetcher(c.Config)), c.Config.SoundtrackDirectUploadMax)
	return nil
}}
