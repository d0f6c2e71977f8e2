package admin

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"sync"
	"time"

	"musiccatalog/pkg/app"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/catalog/manifest"
	"musiccatalog/pkg/outside/acrcloud/acrfake"
)

// outsideServe runs a local outside recognizer: a server speaking the
// ACRCloud identify protocol (signature checked) over the tracks of a
// catalog manifest, so the outside tier of recognition runs end to end
// with the real adapter (ACRCLOUD_HOST=http://HOST:PORT). The manifest
// plays the outside service's database: its tracks should be music the
// catalog does not hold. It serves until ctx ends.
func outsideServe(ctx context.Context, cfg app.Config, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("outside-serve", flag.ContinueOnError)
	manifestPath := fs.String("manifest", "", "")
	addr := fs.String("addr", "127.0.0.1:8090", "")
	key := fs.String("access-key", "", "")
	secret := fs.String("access-secret", "", "")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *manifestPath == "" || *key == "" || *secret == "" {
		return usageError("outside-serve needs --manifest, --access-key and --access-secret")
	}
	dec := decode.Decoder{FFmpegPath: cfg.FFmpegPath}
	tracks, err := outsideTracks(ctx, *manifestPath, dec, log)
	if err != nil {
		return err
	}
	srv, err := acrfake.New(tracks, *key, *secret, acrfake.WithDecoder(dec))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	log.Info(fmt.Sprintf("listening on http://%s", ln.Addr()), slog.Int("tracks", len(tracks)))
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutCtx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// outsideTracks decodes the audio of the manifest's tracks. Invalid
// records are skipped with a warning, as ingest does; sound effects are
// not music an outside service would name.
func outsideTracks(ctx context.Context, path string, dec decode.Decoder, log *slog.Logger) ([]acrfake.Track, error) {
	m, err := manifest.ParseFile(path)
	if err != nil {
		return nil, err
	}
	for _, p := range m.Errors {
		log.Warn("manifest record skipped", slog.String("problem", p.Error()))
	}
	var assets []manifest.Asset
	for _, a := range m.Assets {
		if a.Track == nil {
			continue
		}
		if a.Audio.Path == "" {
			return nil, fmt.Errorf("line %d: outside-serve reads local audio files, not %s", a.Line, a.Audio)
		}
		assets = append(assets, a)
	}
	if len(assets) == 0 {
		return nil, fmt.Errorf("%s: no tracks to serve", path)
	}
	tracks := make([]acrfake.Track, len(assets))
	errs := make([]error, len(assets))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, a := range assets {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			pcm, err := dec.DecodeFile(ctx, a.Audio.Path)
			if err != nil {
				errs[i] = fmt.Errorf("line %d (%s): %w", a.Line, a.Audio.Path, err)
				return
			}
			t := a.Track
			tracks[i] = acrfake.Track{Title: t.Name, Artist: t.Artist.Name, Label: t.Label, ISRC: t.ISRC, Audio: pcm}
			if t.Album != nil {
				tracks[i].Album = t.Album.Name
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return tracks, nil
}
