package heldout

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/catalog/manifest"
)

// Defaults of the held-out catalog (the size issue 15 measured on).
const (
	DefaultTracks = 320
	DefaultSeed   = 15
	// Library is the library every held-out track belongs to.
	Library = "Harbour Lane Music"
	// ManifestName is the manifest Generate writes in its directory.
	ManifestName = "catalog.jsonl"
)

// Latent is the ground truth a held-out track is written from; the
// judgments are rules over it.
type Latent struct {
	Genre, Subgenre string
	Moods           []string // one or two, the main one first
	Energy          float64  // 0..1
	BPM             float64
	Voice           string   // VoiceNone, VoiceMale, VoiceFemale, VoiceDuet, VoiceChoir
	Instruments     []string // what it is played on
	Scenes          []string // scene ids it fits (scenes.go)
}

// Track is one held-out track: its manifest line (written from Latent),
// its ground truth, and the sound its audio is rendered from.
type Track struct {
	Manifest manifest.Track
	Latent   Latent
	Sound    demo.Sound
}

// Tracks returns the held-out catalog of n tracks. Track i depends only on
// seed and i (and on the titles before it), so a smaller catalog is a
// prefix of a larger one. Manifest audio paths point where Generate writes.
func Tracks(n int, seed uint64) []Track {
	out := make([]Track, 0, n)
	titles := map[string]bool{}
	// Subgenres take turns (in an order of the seed's), so each has about
	// n/len(subgenres) tracks and every query has something to find.
	order := rand.New(rand.NewPCG(seed, 0)).Perm(len(subgenres))
	for i := range n {
		sg := subgenres[order[i%len(order)]]
		out = append(out, track(i, seed, sg, rand.New(rand.NewPCG(seed^0x4e1d, uint64(i))), titles))
	}
	return out
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// draw returns k distinct elements of xs (all of them when xs is shorter).
func draw[T any](r *rand.Rand, xs []T, k int) []T {
	idx := r.Perm(len(xs))[:min(k, len(xs))]
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

func track(i int, seed uint64, sg subgenre, r *rand.Rand, titles map[string]bool) Track {
	l := Latent{Genre: sg.genre, Subgenre: sg.name, Voice: VoiceNone}
	l.Moods = draw(r, sg.moods, 1+r.IntN(2))
	moodE := 0.0
	for _, m := range l.Moods {
		moodE += moodEnergy[m].energy
	}
	moodE /= float64(len(l.Moods))
	l.Energy = math.Round(100*max(0.02, min(1, (sg.energy+moodE)/2+0.08*r.NormFloat64()))) / 100
	l.BPM = float64(sg.bpmLo + r.IntN(sg.bpmHi-sg.bpmLo+1))
	if r.Float64() < sg.sung {
		l.Voice = pick(r, sg.voices)
	}
	// The first instrument is the style's signature; one or two more join it.
	l.Instruments = append([]string{sg.instruments[0]}, draw(r, sg.instruments[1:], 1+r.IntN(2))...)
	if l.Voice == VoiceChoir && !slices.Contains(l.Instruments, "choir") {
		l.Instruments = append(l.Instruments, "choir")
	}
	for _, s := range scenes {
		if s.fits(&l) {
			l.Scenes = append(l.Scenes, s.id)
		}
	}

	gi := slices.IndexFunc(subgenres, func(s subgenre) bool { return s.genre == sg.genre })
	artist := artists[(gi+r.IntN(3))%len(artists)]
	title := pick(r, titleWords[0]) + " " + pick(r, titleWords[1])
	for k := 2; titles[artist+"\x00"+title]; k++ {
		title = strings.TrimRight(strings.TrimRight(title, "0123456789"), " ") + fmt.Sprintf(" %d", k)
	}
	titles[artist+"\x00"+title] = true

	minor := moodEnergy[l.Moods[0]].minor
	tonic := r.IntN(12)
	key := audiotest.PitchClasses[tonic] + " major"
	if minor {
		key = audiotest.PitchClasses[tonic] + " minor"
	}
	secondary := l.Moods[len(l.Moods)-1]
	bpm := l.BPM
	rec := manifest.Track{
		Name: title, Genre: sg.genre, Subgenre: sg.name, Mood: l.Moods[0], SecondaryMood: secondary,
		Tempo: &bpm, Key: key, Vocals: catalogVocals(l.Voice),
		Artist: catalog.Artist{Name: artist, Slug: manifest.Slug(artist)}, LibraryName: Library,
		Label:       "Harbour Lane Recordings",
		ReleaseDate: fmt.Sprintf("%04d-%02d-%02d", 2010+r.IntN(16), 1+r.IntN(12), 1+r.IntN(28)),
		AccessTier:  string(catalog.TierFree),
		ISRC:        fmt.Sprintf("QZHLD%02d%05d", (2010+i)%100, i+1),
		Audio:       fmt.Sprintf("audio/%03d-%s.wav", i, manifest.Slug(title)),
	}
	rec.Tags, rec.Description = describe(r, sg, &l)
	snd := demo.Sound{
		Style: sg.sound, Seed: seed*1_000_003 + uint64(i), BPM: bpm, Tonic: tonic, Minor: minor,
		Seconds: 20 + 10*r.Float64(), Energy: l.Energy, Vocals: rec.Vocals,
	}
	if snd.Vocals == catalog.VocalsInstrumental {
		snd.Vocals = ""
	}
	return Track{Manifest: rec, Latent: l, Sound: snd}
}

// catalogVocals is the catalog's vocals value of a latent voice.
func catalogVocals(voice string) string {
	switch voice {
	case VoiceMale:
		return catalog.VocalsMale
	case VoiceFemale:
		return catalog.VocalsFemale
	case VoiceDuet, VoiceChoir:
		return catalog.VocalsMixed
	}
	return catalog.VocalsInstrumental
}

// band is 0, 1 or 2 for a value below lo, below hi, or above.
func band(v, lo, hi float64) int {
	switch {
	case v < lo:
		return 0
	case v < hi:
		return 1
	}
	return 2
}

// describe writes a track's tags and description from its latent
// attributes, in varied sentences that never use the facet names.
func describe(r *rand.Rand, sg subgenre, l *Latent) ([]string, string) {
	var parts []string
	m1 := pick(r, moodPhrases[l.Moods[0]])
	switch {
	case len(l.Moods) > 1 && r.IntN(2) == 0:
		parts = append(parts, fmt.Sprintf("%s, %s.", capital(m1), pick(r, moodPhrases[l.Moods[1]])))
	case len(l.Moods) > 1:
		parts = append(parts, fmt.Sprintf("%s — and underneath, %s.", capital(m1), pick(r, moodPhrases[l.Moods[1]])))
	default:
		parts = append(parts, capital(m1)+".")
	}
	energy := pick(r, energyPhrases[band(l.Energy, 0.35, 0.7)])
	tempo := pick(r, tempoPhrases[band(l.BPM, catalog.TempoMediumFrom, catalog.TempoFastFrom)])
	instr := list(l.Instruments)
	switch r.IntN(4) {
	case 0:
		parts = append(parts, fmt.Sprintf("%s: %s, %s.", capital(pick(r, sg.soundsLike)), energy, tempo))
	case 1:
		parts = append(parts, fmt.Sprintf("Played on %s, %s and %s.", instr, energy, tempo))
	case 2:
		parts = append(parts, fmt.Sprintf("%s, %s, %s.", capital(instr), energy, tempo))
	default:
		parts = append(parts, fmt.Sprintf("Imagine %s, %s.", pick(r, sg.soundsLike), tempo), fmt.Sprintf("%s carry it, %s.", capital(instr), energy))
	}
	parts = append(parts, capital(pick(r, voicePhrases[l.Voice]))+".")
	if r.IntN(3) == 0 {
		parts = append(parts, fmt.Sprintf("Around %.0f beats a minute.", l.BPM))
	}
	if len(l.Scenes) > 0 && r.Float64() < 0.7 {
		named := draw(r, l.Scenes, 1+r.IntN(2))
		var ph []string
		for _, id := range named {
			ph = append(ph, pick(r, scenes[slices.IndexFunc(scenes, func(s scene) bool { return s.id == id })].phrases))
		}
		lead := pick(r, []string{"Made %s.", "Reach for it %s.", "A natural fit %s.", "Picture it %s.", "Cut it %s."})
		parts = append(parts, fmt.Sprintf(lead, strings.Join(ph, " or ")))
	}
	if r.IntN(2) == 0 { // the sound first, the feeling after
		parts[0], parts[1] = parts[1], parts[0]
	}
	return slices.Clone(l.Instruments), strings.Join(parts, " ")
}

// list joins words as prose: "a", "a and b", "a, b and c".
func list(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

func capital(s string) string {
	c, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(c)) + s[n:]
}
