package app

import (
	"os/exec"

	"musiccatalog/pkg/fetch"
	"musiccatalog/pkg/soundtrack"
	"musiccatalog/pkg/soundtrack/videoanalysis"
)

// videoFetcher is the yt-dlp adapter when yt-dlp is installed (YTDLP_PATH,
// default "yt-dlp" on PATH; a layer's /opt/bin/yt-dlp in Lambda), else nil:
// links cannot be fetched here and the calls that need it answer 501.
func videoFetcher(cfg Config) soundtrack.VideoFetcher {
	path, err := exec.LookPath(cfg.YTDLPPath)
	if err != nil {
		return nil
	}
	return &fetch.YTDLP{Path: path, FFmpegPath: cfg.FFmpegPath, Guard: &fetch.Guard{}, Timeout: cfg.YTDLPTimeout}
}

// newSoundtrack wires the soundtrack service (nil without object storage,
// where uploads have nowhere to go).
func (d *Deps) newSoundtrack(f soundtrack.VideoFetcher) {
	d.Soundtrack = nil
	if d.Blob == nil {
		return
	}
	if f == nil {
		d.Log.Info("yt-dlp not found: soundtrack and search links cannot be fetched", "ytdlp_path", d.Config.YTDLPPath)
	}
	svc, err := soundtrack.New(soundtrack.Config{
		Store: d.Store, Blob: d.Blob, Clock: d.Clock, Log: d.Log, Fetcher: f,
		Analyzer: videoanalysis.Analyzer{FFmpegPath: d.Config.FFmpegPath, Identifier: d.identifier()},
	})
	if err != nil {
		d.Log.Error("soundtrack service", "error", err) // only missing dependencies, excluded above
		return
	}
	d.Soundtrack = svc
}

// identifier matches videos against the catalog's fingerprints (nil
// without a catalog); it loads the index once per catalog version.
func (d *Deps) identifier() soundtrack.Identifier {
	if d.Catalog == nil {
		return nil
	}
	return &soundtrack.FingerprintIdentifier{Catalog: d.Catalog, Index: d.Fingerprints}
}
