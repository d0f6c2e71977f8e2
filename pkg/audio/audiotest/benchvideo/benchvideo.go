// Package benchvideo is the 3-minute recognition benchmark video of issue 6
// (three catalog songs, speech alone and over music, a stretch of outside
// music, pauses) and the catalog and outside-service manifests that go with
// it, shared by the devserver benchmark (pkg/app) and the local AWS tier
// (infra/local/integration) so both measure the same thing.
package benchvideo

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
)

// WesnothMusic is where the wesnoth-1.16-music package installs its tracks.
const WesnothMusic = "/usr/share/games/wesnoth/1.16/data/core/music"

// Stretch is one stretch of music placed in the video.
type Stretch struct {
	File       string  // wesnoth track
	From       float64 // where in the track the stretch starts
	Start, End float64 // where in the video it plays
	Outside    bool    // served by the outside service, not in the catalog
	Title      string
}

// Seconds is the video's length.
const Seconds = 180

// Music, Speech, Catalog and Outsiders describe the video and its world.
var (
	Music = []Stretch{
		{File: "battle.ogg", From: 30, Start: 12, End: 52, Title: "Battle"},
		{File: "knolls.ogg", From: 40, Start: 66, End: 101, Title: "Knolls"},
		{File: "northerners.ogg", From: 35, Start: 113, End: 143, Outside: true, Title: "Northerners"},
		{File: "traveling_minstrels.ogg", From: 20, Start: 150, End: 180, Title: "Traveling Minstrels"},
	}
	Speech = [][2]float64{{0, 22}, {52, 66}, {101, 113}, {143, 150}}
	// Catalog are the catalog tracks besides the songs in the video.
	Catalog = []string{"elvish-theme.ogg", "heroes_rite.ogg", "legends_of_the_north.ogg", "loyalists.ogg", "revelation.ogg", "the_city_falls.ogg", "underground.ogg", "wanderer.ogg", "vengeful.ogg"}
	// Outsiders are the outside service's other tracks.
	Outsiders = []string{"siege_of_laurelmor.ogg", "journeys_end.ogg"}
)

// Title names a wesnoth file as its catalog title ("traveling_minstrels.ogg" → "Traveling Minstrels").
func Title(file string) string {
	words := strings.FieldsFunc(strings.TrimSuffix(file, ".ogg"), func(r rune) bool { return r == '_' || r == '-' })
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

// CatalogFiles are the wesnoth files of the catalog: the others, then the
// video's catalog songs.
func CatalogFiles() []string {
	files := append([]string{}, Catalog...)
	for _, s := range Music {
		if !s.Outside {
			files = append(files, s.File)
		}
	}
	return files
}

// CatalogManifest is the catalog's ingest manifest; audio names each
// file's audio reference (a local path, or a key beside a manifest in
// object storage).
func CatalogManifest(audio func(file string) string) string {
	var m strings.Builder
	for i, f := range CatalogFiles() {
		fmt.Fprintf(&m, `{"kind":"track","name":%q,"artist":{"name":"Wesnoth","slug":"wesnoth"},"genre_name":"Orchestral","access_tier":"free","isrc":"QZTST26%05d","audio":%q}`+"\n",
			Title(f), i, audio(f))
	}
	return m.String()
}

// OutsideManifest is the outside service's manifest (admin outside-serve).
func OutsideManifest() string {
	var m strings.Builder
	files := append([]string{}, Outsiders...)
	for _, s := range Music {
		if s.Outside {
			files = append(files, s.File)
		}
	}
	for i, f := range files {
		fmt.Fprintf(&m, `{"kind":"track","name":%q,"artist":{"name":"Outside Artist"},"label":"Outside Library %d","isrc":"QZOUT26%05d","genre_name":"Orchestral","audio":%q}`+"\n",
			Title(f), i, i, filepath.Join(WesnothMusic, f))
	}
	return m.String()
}

// Make renders the video into dir and returns its path: music stretches
// cut from the wesnoth tracks (50 ms fades, no click), synthetic speech in
// the speech spans, black frames, AAC in MP4 as a phone would record it.
func Make(dir string) (string, error) {
	const rate = 22050
	speech := audiotest.Silence(rate, Seconds)
	for i, span := range Speech {
		talk := audiotest.Babble(rate, span[1]-span[0], uint64(i+1))
		scaleToRMS(talk, 0.08)
		copy(speech.Samples[int(span[0]*rate):], talk.Samples)
	}
	speechPath := filepath.Join(dir, "speech.wav")
	f, err := os.Create(speechPath)
	if err != nil {
		return "", err
	}
	if err := decode.WriteWAV(f, speech); err != nil {
		f.Close()
		return "", err
	}
	f.Close()

	args := []string{"-v", "error", "-y", "-i", speechPath}
	var graph strings.Builder
	mix := "[0:a]"
	for i, s := range Music {
		length := s.End - s.Start
		args = append(args, "-ss", fmt.Sprint(s.From), "-t", fmt.Sprint(length), "-i", filepath.Join(WesnothMusic, s.File))
		fmt.Fprintf(&graph, "[%d:a]aresample=%d,aformat=channel_layouts=mono,afade=t=in:d=0.05,afade=t=out:st=%g:d=0.05,adelay=%d:all=1[m%d];",
			i+1, rate, length-0.05, int(s.Start*1000), i)
		mix += fmt.Sprintf("[m%d]", i)
	}
	fmt.Fprintf(&graph, "%samix=inputs=%d:normalize=0:duration=longest,atrim=0:%d[a]", mix, len(Music)+1, Seconds)
	video := filepath.Join(dir, "bench.mp4")
	args = append(args, "-f", "lavfi", "-t", fmt.Sprint(Seconds), "-i", "color=c=black:s=320x240:r=15",
		"-filter_complex", graph.String(), "-map", "[a]", "-map", fmt.Sprintf("%d:v", len(Music)+1),
		"-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-shortest", video)
	if out, err := exec.Command("ffmpeg", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("ffmpeg: %v %s", err, out)
	}
	return video, nil
}

func scaleToRMS(p audio.PCM, rms float64) {
	var sum float64
	for _, v := range p.Samples {
		sum += float64(v) * float64(v)
	}
	if sum > 0 {
		audiotest.Scale(p, rms/math.Sqrt(sum/float64(len(p.Samples))))
	}
}
