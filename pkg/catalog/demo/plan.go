package demo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/manifest"
)

// Library names of the demo catalog; the second is the source feed whose
// raw titles end in "-JP".
const (
	Library   = "Demo Library"
	JPLibrary = "Tokyo Sound Library"
)

// trackPlan is one demo track: its manifest line and the song its audio is
// rendered from.
type trackPlan struct {
	rec   manifest.Track
	song  song
	file  string   // audio path relative to the manifest
	stems []string // stem names, in layer order, when the track has stems
}

// plans returns the demo tracks. Track i depends only on seed and i (and
// on track i-1 for variants), so a smaller catalog is a prefix of a larger
// one.
func plans(n int, seed uint64) []trackPlan {
	out := make([]trackPlan, 0, n)
	titles := map[string]bool{} // artist + title, which must differ for derived ids to
	for i := range n {
		if i > 0 {
			if v, ok := variant(&out[i-1], i); ok {
				out = append(out, v)
				continue
			}
		}
		out = append(out, original(i, seed, rand.New(rand.NewPCG(seed, uint64(i))), titles))
	}
	return out
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// original makes a track that is not a version of another.
func original(i int, seed uint64, r *rand.Rand, titles map[string]bool) trackPlan {
	gi := r.IntN(len(genres))
	g := genres[gi]
	sg := pick(r, g.subgenres)
	st := sg.style
	moodName := pick(r, st.moods)
	secondary := pick(r, st.moods)
	md := moods[moodName]
	bpm := float64(st.bpmLo + r.IntN(st.bpmHi-st.bpmLo+1))
	tonic := r.IntN(12)
	key := audiotest.PitchClasses[tonic] + " major"
	if md.minor {
		key = audiotest.PitchClasses[tonic] + " minor"
	}
	vocals := catalog.VocalsInstrumental
	if r.Float64() < st.vocalChance {
		vocals = pick(r, []string{catalog.VocalsMale, catalog.VocalsMale, catalog.VocalsFemale, catalog.VocalsFemale, catalog.VocalsMixed})
	}
	jp := i%16 == 6
	library, artist := Library, artistNames[(gi*4+r.IntN(4))%len(artistNames)]
	if jp {
		library, artist = JPLibrary, pick(r, jpArtists)
	}
	title := pick(r, titleAdjectives) + " " + pick(r, titleNouns)
	if r.IntN(4) == 0 {
		title = "The " + title
	}
	for n := 2; titles[artist+"\x00"+title]; n++ {
		title = strings.TrimRight(strings.TrimRight(title, "0123456789"), " ") + fmt.Sprintf(" %d", n)
	}
	titles[artist+"\x00"+title] = true
	// 20–40 s, most of them short: the demo is generated and ingested on
	// first start, and what it shows does not need long tracks.
	u := r.Float64()
	bars := barsFor(bpm, 20+20*u*u)
	sng := song{seed: seed*1_000_003 + uint64(i), bpm: bpm, tonic: tonic, minor: md.minor, bars: bars, style: st, energy: md.energy}
	if vocals != catalog.VocalsInstrumental {
		sng.vocals = vocals
	}
	rec := manifest.Track{
		Name: title, Genre: g.name, Subgenre: sg.name, Mood: moodName, SecondaryMood: secondary,
		Tempo: &bpm, Key: key, Vocals: vocals,
		Artist: catalog.Artist{Name: artist, Slug: manifest.Slug(artist)}, LibraryName: library,
		Label:       labels[r.IntN(len(labels))],
		ReleaseDate: fmt.Sprintf("%04d-%02d-%02d", 2012+r.IntN(14), 1+r.IntN(12), 1+r.IntN(28)),
		AccessTier:  string(catalog.TierFree),
	}
	if jp {
		rec.Name += "-JP"
		rec.Label = "Tokyo Sound Works"
		// The feed leaves vocals unclassified for some of its tracks.
		if i%32 == 6 {
			rec.Vocals = ""
		}
	}
	switch {
	case i%25 == 3:
		rec.AccessTier = string(catalog.TierEnterprise)
	case i%3 == 1:
		rec.AccessTier = string(catalog.TierSubscriber)
	}
	rec.Restricted = i%20 == 8 || i%20 == 13
	if vocals != catalog.VocalsInstrumental {
		rec.Lyrics = lyrics(r, g.name == "Hip Hop" && r.IntN(3) == 0)
		rec.IsExplicit = strings.Contains(rec.Lyrics, "damn") || strings.Contains(rec.Lyrics, "hell")
	}
	if i%10 != 9 {
		rec.ISRC = fmt.Sprintf("QZDMO%02d%05d", (2012+i)%100, i+1)
	}
	if r.Float64() < 0.7 {
		albumName := pick(r, titleAdjectives) + " " + pick(r, titleNouns)
		slug := manifest.Slug(artist + " " + albumName)
		rec.Album = &catalog.Album{
			ID: manifest.AlbumID(artist, albumName), Name: albumName, Slug: slug,
			URL:      "https://demo.musiccatalog.example/albums/" + slug,
			Images:   imageSizes("albums/" + slug),
			Blurhash: blurhash(r),
		}
		rec.Cover = rec.Album.Images.Large
	} else {
		rec.Cover = imageSizes("covers/" + manifest.Slug(artist+" "+title)).Large
	}
	rec.Writers, rec.Publishers = rights(i, r)
	rec.Tags, rec.Description = describe(r, sg, md, bpm, key, vocals)
	rec.Translations = translate(i, g.name, sg.name, moodName, secondary, bpm, key)
	p := trackPlan{rec: rec, song: sng, file: fmt.Sprintf("audio/%03d-%s.wav", i, manifest.Slug(title))}
	if i%10 == 0 {
		p.stems = stemNames(st, vocals)
	}
	return p
}

// barsFor is how many bars (at least 4) at bpm make about target seconds
// with the song's 1.2 s tail, and never more than 40.5 s.
func barsFor(bpm, target float64) int {
	beatSec := 60 / bpm
	bars := max(4, int(math.Round((target-1.2)/(4*beatSec))))
	for float64(bars)*4*beatSec+1.2 > 40.5 && bars > 4 {
		bars--
	}
	return bars
}

// variant makes track i a version of the previous track where that track
// allows one: an instrumental of a sung track, or a short edit of a long
// one. Versions share everything but the audio and the variant marker.
func variant(base *trackPlan, i int) (trackPlan, bool) {
	if base.rec.Variant != "" {
		return trackPlan{}, false
	}
	v := *base
	v.stems = nil
	switch {
	case i%12 == 5 && base.song.vocals != "":
		v.rec.Variant = "Instrumental"
		v.rec.Vocals = catalog.VocalsInstrumental
		v.rec.Lyrics, v.rec.IsExplicit = "", false
		v.song.noVoice = true
	case i%12 == 11 && base.song.bars >= 8:
		v.rec.Variant = "Short Edit"
		v.song.bars = base.song.bars / 2
	default:
		return trackPlan{}, false
	}
	v.rec.Tags = append(append([]string(nil), base.rec.Tags...), strings.ToLower(v.rec.Variant))
	if base.rec.ISRC != "" {
		v.rec.ISRC = fmt.Sprintf("QZDMO%02d%05d", (2012+i)%100, i+1)
	}
	v.file = strings.TrimSuffix(base.file, ".wav") + "-" + manifest.Slug(v.rec.Variant) + ".wav"
	return v, true
}

func stemNames(st style, vocals string) []string {
	chords := map[timbre]string{timbrePluck: "Guitar", timbreStrings: "Strings", timbrePiano: "Piano", timbreOrgan: "Keys", timbreSoft: "Keys"}[st.chords]
	if chords == "" {
		chords = "Synths"
	}
	melody := "Melody"
	if vocals != catalog.VocalsInstrumental {
		melody = "Vocals"
	}
	drums := "Drums"
	if st.drums == drumsNone {
		drums = ""
	} else if st.drums == drumsPulse || st.drums == drumsTaiko {
		drums = "Percussion"
	}
	return []string{drums, "Bass", chords, melody}
}

func imageSizes(path string) catalog.ImageSizes {
	base := "https://demo-cdn.musiccatalog.example/" + path
	return catalog.ImageSizes{Small: base + "-150.jpg", Medium: base + "-300.jpg", Large: base + "-600.jpg"}
}

// blurhash returns a valid one-component BlurHash: a placeholder of one
// average colour.
func blurhash(r *rand.Rand) string {
	const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~"
	rgb := r.IntN(1 << 24)
	enc := func(v, n int) string {
		b := make([]byte, n)
		for i := n - 1; i >= 0; i-- {
			b[i] = digits[v%83]
			v /= 83
		}
		return string(b)
	}
	return "00" + enc(rgb, 4)
}

// rights gives writer and publisher splits; a few are incomplete (a share
// missing, or not summing to 100) as real feeds are.
func rights(i int, r *rand.Rand) (writers, pubs []catalog.RightsHolder) {
	splits := [][]float64{{100}, {50, 50}, {60, 40}, {40, 30, 30}, {33.33, 33.33, 33.34}}
	person := func() string { return pick(r, writerFirst) + " " + pick(r, writerLast) }
	ipi := func() string { return fmt.Sprintf("%011d", r.Int64N(1e11)) }
	for _, s := range pick(r, splits) {
		writers = append(writers, catalog.RightsHolder{Name: person(), Share: s, PRO: pick(r, pros), IPI: ipi()})
	}
	for _, s := range pick(r, splits[:3]) {
		pubs = append(pubs, catalog.RightsHolder{Name: pick(r, publishers), Share: s, PRO: pick(r, pros), IPI: ipi()})
	}
	if i%7 == 2 {
		writers[0].Share = 0 // unknown share
	}
	if i%9 == 4 && len(pubs) > 1 {
		pubs = pubs[:1] // a co-publisher is missing
		pubs[0].Share = 50
	}
	return writers, pubs
}

func lyrics(r *rand.Rand, explicit bool) string {
	var lines []string
	for range 4 + r.IntN(4) {
		lines = append(lines, pick(r, lyricLines))
	}
	if explicit {
		lines[r.IntN(len(lines))] = pick(r, explicitLines)
	}
	return strings.Join(lines, "\n")
}

func describe(r *rand.Rand, sg subgenre, md mood, bpm float64, key, vocals string) ([]string, string) {
	lead := timbreNames[sg.lead]
	voice := map[string]string{catalog.VocalsMale: "male vocals", catalog.VocalsFemale: "female vocals", catalog.VocalsMixed: "male and female vocals"}[vocals]
	what := "instrumental"
	if voice != "" {
		what = "song with " + voice
	}
	uses := []string{pick(r, sg.useCase), pick(r, sg.useCase)}
	if uses[0] == uses[1] {
		uses = uses[:1]
	}
	desc := fmt.Sprintf("A %s %s %s in %s at %.0f BPM, %s and %s, led by %s. Great for %s videos.",
		md.adj, strings.ToLower(sg.name), what, key, bpm, pick(r, sg.words), pick(r, sg.words), lead, strings.Join(uses, " and "))
	tags := append([]string{}, md.tags[:2]...)
	tags = append(tags, sg.words[r.IntN(len(sg.words))], lead, catalog.TempoDescriptor(bpm))
	tags = append(tags, uses...)
	if voice != "" {
		tags = append(tags, "vocals", voice)
	}
	return tags, desc
}

// translate gives the German and Japanese names; the Japanese feed carries
// a description only on some tracks, so the rest fall back to English.
func translate(i int, genre, subgenre, moodName, secondary string, bpm float64, key string) map[string]catalog.Translation {
	out := map[string]catalog.Translation{}
	for li, loc := range Locales {
		tr := catalog.Translation{
			Genre: translations[genre][li], Subgenre: translations[subgenre][li],
			Mood: translations[moodName][li], SecondaryMood: translations[secondary][li],
		}
		switch loc {
		case "de":
			tr.Description = fmt.Sprintf("%s-Titel (%s) in %s mit %.0f BPM, Stimmung: %s.", tr.Subgenre, tr.Genre, germanKey(key), bpm, strings.ToLower(tr.Mood))
		case "ja":
			if i%5 != 2 {
				tr.Description = fmt.Sprintf("%sな%s（%s）。キー%s、テンポ%.0f BPM。", tr.Mood, tr.Subgenre, tr.Genre, key, bpm)
			}
		}
		out[loc] = tr
	}
	return out
}

// germanKey names a key the German way: sharps as -is, B as H, minor in
// lower case ("fis-Moll", "H-Dur").
func germanKey(key string) string {
	note, mode, _ := strings.Cut(key, " ")
	note = strings.Replace(strings.Replace(note, "B", "H", 1), "#", "is", 1)
	if mode == "minor" {
		return strings.ToLower(note) + "-Moll"
	}
	return note + "-Dur"
}
