package acrfake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"sync"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/outside/acrcloud"
)

// MaxSampleBytes is the largest sample accepted (3016 beyond it).
const MaxSampleBytes = 5 << 20

// minScorePerSecond stands in for the real service's vast reference
// database. The matcher rejects chance alignments by comparing a
// candidate with the runner-up track, but over a handful of references
// there is often no runner-up: unrelated music was measured aligning up to
// about 5 hashes per second of sample by chance, a true match tens.
const minScorePerSecond = 8

// Track is one reference recording.
type Track struct {
	Title, Artist, Album, Label, ISRC string
	Audio                             audio.PCM
}

// Server answers identify requests.
type Server struct {
	key, secret string
	tracks      []Track
	index       *fingerprint.Index
	decoder     decode.Decoder
	fps         sync.Pool
}

// Option configures a Server.
type Option func(*Server)

// WithDecoder sets the decoder for samples that are not WAV (ffmpeg).
func WithDecoder(d decode.Decoder) Option { return func(s *Server) { s.decoder = d } }

// New fingerprints the tracks and returns a Server accepting requests
// signed with key and secret.
func New(tracks []Track, key, secret string, opts ...Option) (*Server, error) {
	if key == "" || secret == "" {
		return nil, errors.New("acrfake: access key and secret are required")
	}
	s := &Server{key: key, secret: secret, tracks: tracks}
	s.fps.New = func() any { return fingerprint.New(fingerprint.QueryOptions) }
	for _, o := range opts {
		o(s)
	}
	b := fingerprint.NewBuilder()
	fp := fingerprint.New(fingerprint.IndexOptions)
	for i, t := range tracks {
		if len(t.Audio.Samples) == 0 {
			return nil, fmt.Errorf("acrfake: track %d (%s) has no audio", i, t.Title)
		}
		if err := b.Add(strconv.Itoa(i), t.Audio.Seconds(), fp.Fingerprint(t.Audio)); err != nil {
			return nil, fmt.Errorf("acrfake: %w", err)
		}
	}
	s.index = b.Build()
	return s, nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != acrcloud.IdentifyPath {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	writeJSON(w, s.identify(r))
}

func status(code int, msg string) acrcloud.Response {
	return acrcloud.Response{Status: acrcloud.Status{Code: code, Msg: msg, Version: "1.0"}}
}

func (s *Server) identify(r *http.Request) acrcloud.Response {
	r.Body = http.MaxBytesReader(nil, r.Body, MaxSampleBytes+64<<10)
	if err := r.ParseMultipartForm(MaxSampleBytes + 64<<10); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return status(acrcloud.CodeSampleTooLarge, "audio file too big")
		}
		return status(acrcloud.CodeInvalidArguments, "invalid arguments: "+err.Error())
	}
	f := r.FormValue
	for _, name := range []string{"access_key", "sample_bytes", "timestamp", "signature", "data_type", "signature_version"} {
		if f(name) == "" {
			return status(acrcloud.CodeInvalidArguments, "missing "+name)
		}
	}
	if f("access_key") != s.key {
		return status(acrcloud.CodeInvalidAccessKey, "invalid access key")
	}
	want := acrcloud.Signature(s.secret, f("access_key"), f("data_type"), f("signature_version"), f("timestamp"))
	if f("signature") != want {
		return status(acrcloud.CodeInvalidSignature, "invalid signature")
	}
	if f("data_type") != acrcloud.DataType {
		return status(acrcloud.CodeInvalidArguments, "unsupported data_type")
	}
	file, _, err := r.FormFile("sample")
	if err != nil {
		return status(acrcloud.CodeInvalidArguments, "missing sample")
	}
	defer file.Close()
	sample, err := io.ReadAll(file)
	if err != nil {
		return status(acrcloud.CodeInvalidArguments, "unreadable sample")
	}
	if n, err := strconv.Atoi(f("sample_bytes")); err != nil || n != len(sample) {
		return status(acrcloud.CodeInvalidArguments, "sample_bytes does not match the sample")
	}
	if len(sample) > MaxSampleBytes {
		return status(acrcloud.CodeSampleTooLarge, "audio file too big")
	}
	pcm, err := s.decode(r.Context(), sample)
	if err != nil {
		return status(acrcloud.CodeNoResult, "No result") // the service cannot fingerprint it either
	}
	return s.match(pcm)
}

func (s *Server) decode(ctx context.Context, sample []byte) (audio.PCM, error) {
	if pcm, err := decode.ReadWAV(bytes.NewReader(sample)); err == nil {
		return pcm, nil
	}
	return s.decoder.Decode(ctx, bytes.NewReader(sample))
}

func (s *Server) match(pcm audio.PCM) acrcloud.Response {
	fp := s.fps.Get().(*fingerprint.Fingerprinter)
	hashes := fp.Fingerprint(pcm)
	s.fps.Put(fp)
	floor := max(fingerprint.DefaultMinScore, int(minScorePerSecond*pcm.Seconds()))
	cands := s.index.Match(hashes, fingerprint.MatchOptions{MinScore: floor})
	if len(cands) == 0 {
		return status(acrcloud.CodeNoResult, "No result")
	}
	c := cands[0]
	i, _ := strconv.Atoi(c.TrackID)
	t := s.tracks[i]
	// 70 at the floor, 100 at four times it.
	score := math.Round(70 + 30*min(1, float64(c.Score-floor)/float64(3*floor)))
	m := acrcloud.Music{
		Title:        t.Title,
		Label:        t.Label,
		Score:        &score,
		PlayOffsetMs: int64(math.Round((c.TrackOffset + pcm.Seconds()) * 1000)),
		DurationMs:   int64(math.Round(t.Audio.Seconds() * 1000)),
	}
	if t.Artist != "" {
		m.Artists = []acrcloud.Name{{Name: t.Artist}}
	}
	if t.Album != "" {
		m.Album = &acrcloud.Name{Name: t.Album}
	}
	if t.ISRC != "" {
		m.ExternalIDs = &acrcloud.ExternalIDs{ISRC: acrcloud.ISRCs{t.ISRC}}
	}
	resp := status(acrcloud.CodeSuccess, "Success")
	resp.Metadata = &acrcloud.Metadata{Music: []acrcloud.Music{m}}
	return resp
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
