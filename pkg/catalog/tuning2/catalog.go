package tuning2

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/manifest"
)

// Truth is what a generated track is, beyond its facets: whether a choir
// sings on it and which instruments play (the queries' rules read them).
type Truth struct {
	Choir       bool
	Instruments []string
}

// Catalog is the generated catalog: manifest lines and each line's truth
// by track name.
type Catalog struct {
	Tracks []manifest.Track
	Truth  map[string]Truth // by manifest name (unique)
}

// Size is the default track count.
const Size = 300

// style is how a subgenre sounds and is described.
type style struct {
	genre, name  string
	bpmLo, bpmHi int
	vocalChance  float64
	choirChance  float64
	moods        []string // the first two most likely
	sound        []string // phrases describing the sound, no facet word
	instruments  []string
	tags         []string
}

// styles is the taxonomy: genres and subgenres with how each is played.
// Names partly overlap the demo catalog's, partly not.
var styles = []style{
	{"Electronic", "House", 118, 126, 0.3, 0, []string{"Energetic", "Happy", "Uplifting"},
		[]string{"a thumping kick on every beat with chopped organ stabs", "a club groove for the small hours, kick and offbeat bass", "warm chords over a steady four-to-the-floor pulse"},
		[]string{"drum machine", "organ", "bass synth"}, []string{"club", "dancefloor", "weekend", "night out"}},
	{"Electronic", "Techno", 126, 136, 0.05, 0, []string{"Tense", "Energetic", "Mysterious"},
		[]string{"a relentless machine pulse in a concrete basement", "hypnotic loops that tighten bar after bar", "cold metallic percussion and a rumbling low end"},
		[]string{"drum machine", "modular synth"}, []string{"warehouse", "after hours", "machines", "loop"}},
	{"Electronic", "Synthwave", 88, 112, 0.3, 0, []string{"Nostalgic", "Dreamy", "Mysterious"},
		[]string{"glowing analog keyboards straight out of an eighties movie", "gated snares and shimmering arpeggios under neon signs", "a retro-futurist glide through a city at midnight"},
		[]string{"analog keyboards", "drum machine"}, []string{"eighties", "neon", "retro", "arcade"}},
	{"Electronic", "Trip Hop", 80, 96, 0.35, 0, []string{"Relaxed", "Dreamy", "Sensual"},
		[]string{"unhurried beats and velvet pads", "a lazy groove with soft keys and a warm low end", "laid-back breaks drifting under hazy textures"},
		[]string{"keys", "drum machine", "pads"}, []string{"lounge bar", "sunset", "easy listening", "late evening"}},
	{"Hip Hop", "Trap", 136, 150, 0.85, 0, []string{"Aggressive", "Dark", "Energetic"},
		[]string{"booming 808s and rattling hi-hats", "menacing bells over a sub-heavy beat", "stuttering hats and a bass that shakes the car"},
		[]string{"808", "drum machine"}, []string{"street", "swagger", "bass heavy", "flex"}},
	{"Hip Hop", "Lo-fi Hip Hop", 70, 86, 0.1, 0, []string{"Relaxed", "Nostalgic", "Melancholic"},
		[]string{"dusty beats with crackling vinyl and mellow keys", "a soft head-nodding loop with muted chords", "tape hiss, warm keys and a sleepy drum break"},
		[]string{"electric piano", "sampler"}, []string{"homework", "rainy window", "late night desk", "tape"}},
	{"Hip Hop", "Boom Bap", 86, 96, 0.9, 0, []string{"Confident", "Nostalgic", "Dark"},
		[]string{"chopped vintage samples and a knocking snare", "a nineties street beat with scratches", "heavy kicks and crate-dug horns"},
		[]string{"sampler", "turntables"}, []string{"nineties", "street corner", "cypher", "rhymes"}},
	{"Rock", "Indie Rock", 112, 138, 0.75, 0, []string{"Hopeful", "Happy", "Nostalgic"},
		[]string{"jangly guitars and a garage drum kit", "bright chiming guitars and a big singalong chorus", "scrappy guitars and a driving bassline"},
		[]string{"electric guitar", "drum kit", "bass guitar"}, []string{"garage", "college radio", "summer", "youth"}},
	{"Rock", "Hard Rock", 124, 150, 0.75, 0, []string{"Aggressive", "Energetic", "Triumphant"},
		[]string{"crunching power chords and pounding drums", "screaming guitar solos over a stomping beat", "loud amplifiers and a swaggering riff"},
		[]string{"electric guitar", "drum kit"}, []string{"stadium", "riffs", "loud", "arena"}},
	{"Rock", "Metal", 150, 180, 0.7, 0, []string{"Aggressive", "Dark", "Epic"},
		[]string{"down-tuned guitars and double-kick drums", "a wall of distortion and thunderous drumming", "shredding riffs at full throttle"},
		[]string{"electric guitar", "drum kit"}, []string{"headbang", "distortion", "mosh", "thunder"}},
	{"Pop", "Dance Pop", 118, 128, 0.9, 0, []string{"Happy", "Energetic", "Sexy"},
		[]string{"glossy chart hooks over a bouncing beat", "shiny keyboards and handclaps made for the radio", "a catchy chorus and sparkling production"},
		[]string{"synthesizer", "drum machine"}, []string{"radio", "chart", "hooks", "girls night"}},
	{"Pop", "Acoustic Pop", 92, 116, 0.85, 0, []string{"Happy", "Romantic", "Hopeful"},
		[]string{"strummed guitar, handclaps and a sunny hook", "a light unplugged arrangement with ukulele and shaker", "a breezy guitar and a warm hum"},
		[]string{"acoustic guitar", "ukulele"}, []string{"sunshine", "picnic", "unplugged", "feel good"}},
	{"R&B", "Soul", 70, 100, 0.95, 0.15, []string{"Romantic", "Sensual", "Sentimental"},
		[]string{"a sweet horn section and a deep groove from the sixties", "a heartfelt voice over organ and tight drums", "velvet grooves with a tambourine and strings"},
		[]string{"organ", "horns", "bass guitar"}, []string{"motown", "velvet", "slow dance", "vintage"}},
	{"R&B", "Gospel", 70, 110, 0.95, 0.8, []string{"Uplifting", "Spiritual", "Triumphant"},
		[]string{"hand-clapping praise with a Hammond organ", "a congregation lifting its voices on Sunday morning", "call and response between a lead voice and the pews"},
		[]string{"organ", "piano"}, []string{"church", "praise", "sunday service", "hallelujah"}},
	{"Jazz", "Smooth Jazz", 76, 100, 0.3, 0, []string{"Romantic", "Relaxed", "Sensual"},
		[]string{"a silky saxophone over soft keys", "brushed drums and a gentle electric piano", "a polished late-evening groove with sax and fretless bass"},
		[]string{"saxophone", "electric piano"}, []string{"wine bar", "candlelight", "evening", "silky"}},
	{"Jazz", "Swing", 140, 180, 0.35, 0, []string{"Playful", "Happy", "Nostalgic"},
		[]string{"a big band with a walking bass and bright trumpets", "a toe-tapping shuffle from the dance halls of the forties", "clarinets and a brisk ride cymbal"},
		[]string{"trumpet", "clarinet", "upright bass"}, []string{"big band", "ballroom", "speakeasy", "forties"}},
	{"Jazz", "Bossa Nova", 100, 124, 0.5, 0, []string{"Relaxed", "Romantic", "Happy"},
		[]string{"nylon-string guitar and a soft Brazilian rhythm", "a breezy rhythm from Rio with a whispered melody", "gentle syncopated guitar under a seaside sun"},
		[]string{"nylon guitar", "shaker"}, []string{"rio", "seaside", "cafe", "caipirinha"}},
	{"Classical", "Neo-Classical", 56, 84, 0, 0, []string{"Melancholic", "Sentimental", "Peaceful"},
		[]string{"a lone grand piano in a quiet room", "unaccompanied keys, tender and spacious", "a single pianist playing softly with the sustain pedal down"},
		[]string{"piano"}, []string{"keys", "reflection", "recital", "intimate"}},
	{"Classical", "Chamber", 60, 100, 0, 0, []string{"Sentimental", "Romantic", "Melancholic"},
		[]string{"two violins, a viola and a cello in close conversation", "bowed strings woven together in a candlelit salon", "a cello line carrying four-part harmony"},
		[]string{"violin", "cello", "viola"}, []string{"quartet", "elegant", "bowed", "salon"}},
	{"Classical", "Choral", 54, 84, 1, 1, []string{"Spiritual", "Peaceful", "Epic"},
		[]string{"a cathedral choir in several parts", "massed voices rising under a stone vault", "sopranos and basses answering one another in plainsong"},
		[]string{"voices", "organ"}, []string{"cathedral", "hymn", "sacred", "voices"}},
	{"Cinematic", "Epic Orchestral", 90, 140, 0.1, 0.4, []string{"Epic", "Triumphant", "Tense"},
		[]string{"thundering taikos, brass fanfares and soaring strings", "a full symphony swelling to a huge climax", "heroic horns and pounding war drums"},
		[]string{"orchestra", "brass", "percussion"}, []string{"blockbuster", "battle", "hero", "fanfare"}},
	{"Cinematic", "Underscore", 70, 110, 0, 0, []string{"Tense", "Mysterious", "Dark"},
		[]string{"ticking pulses and nervous strings", "a slow build of low hums and clock-like percussion", "stabbing strings that keep you on edge"},
		[]string{"strings", "synth bass"}, []string{"investigation", "countdown", "edge of seat", "chase"}},
	{"Cinematic", "Macabre", 50, 80, 0, 0.15, []string{"Scary", "Dark", "Tense"},
		[]string{"creaking textures and sudden string screeches", "an out-of-tune music box in an empty mansion", "whispers, low rumbles and dissonant clusters"},
		[]string{"strings", "music box"}, []string{"haunted", "nightmare", "creepy", "jump scare"}},
	{"Cinematic", "Documentary", 70, 100, 0, 0, []string{"Hopeful", "Peaceful", "Mysterious"},
		[]string{"patient piano and strings for wide landscapes", "an understated score under a narrator", "a gentle build of marimba and soft pads"},
		[]string{"piano", "strings", "marimba"}, []string{"narration", "wildlife", "landscape", "science"}},
	{"Folk", "Singer-Songwriter", 70, 104, 1, 0, []string{"Melancholic", "Sentimental", "Romantic"},
		[]string{"just a voice and a strummed guitar", "a storyteller with a fingerpicked guitar by the fire", "a hushed confession over a simple guitar"},
		[]string{"acoustic guitar", "harmonica"}, []string{"campfire", "stories", "coffeehouse", "heartfelt"}},
	{"Folk", "Country", 92, 124, 0.9, 0, []string{"Happy", "Nostalgic", "Sentimental"},
		[]string{"pedal steel, fiddle and a twang", "a boot-stomping Nashville tune with banjo", "dusty highways, a fiddle and a warm drawl"},
		[]string{"banjo", "fiddle", "pedal steel"}, []string{"nashville", "ranch", "highway", "honky tonk"}},
	{"Folk", "Celtic", 96, 140, 0.3, 0.1, []string{"Playful", "Happy", "Nostalgic"},
		[]string{"a tin whistle and bodhran jig from the Irish hills", "reels on fiddle and pipes in a pub", "a misty highland air with harp"},
		[]string{"tin whistle", "fiddle", "harp"}, []string{"ireland", "highlands", "pub", "jig"}},
	{"Ambient", "New Age", 50, 70, 0, 0, []string{"Peaceful", "Relaxed", "Spiritual"},
		[]string{"singing bowls and long breathing pads", "soft tones that rise and fall like slow breath", "a still pool of chimes and hum"},
		[]string{"singing bowls", "pads"}, []string{"mindfulness", "breathing", "spa", "zen"}},
	{"Ambient", "Space Music", 40, 60, 0, 0, []string{"Mysterious", "Dark", "Dreamy"},
		[]string{"one endless low tone slowly changing colour", "a deep hum stretching for minutes", "layers of sustained noise like wind in a cave"},
		[]string{"synthesizer"}, []string{"void", "deep space", "stillness", "hum"}},
	{"World", "Reggae", 70, 90, 0.85, 0, []string{"Happy", "Relaxed", "Hopeful"},
		[]string{"offbeat guitar skanks and a rolling bass from Kingston", "island rhythms and a laid-back one-drop beat", "sunny offbeats with dub echoes"},
		[]string{"guitar", "bass guitar", "organ"}, []string{"island", "jamaica", "one drop", "sunshine"}},
	{"World", "Latin", 96, 128, 0.8, 0, []string{"Energetic", "Sexy", "Happy"},
		[]string{"congas, timbales and a hot brass section", "a salsa groove with piano montunos", "spicy percussion and a horn line that makes hips move"},
		[]string{"congas", "brass", "piano"}, []string{"salsa", "fiesta", "havana", "carnival"}},
	{"World", "Flamenco", 100, 160, 0.6, 0, []string{"Sensual", "Dramatic", "Melancholic"},
		[]string{"fiery Spanish guitar and handclaps", "a rasgueado guitar with stamping heels", "passionate palmas and a wailing cante from Andalusia"},
		[]string{"spanish guitar", "palmas"}, []string{"andalusia", "spain", "heels", "passion"}},
	{"Kids", "Nursery", 56, 76, 0.6, 0, []string{"Peaceful", "Dreamy", "Sentimental"},
		[]string{"a music box and a soft hum to sway a cradle", "a gentle celesta melody for little ones drifting off", "a tender hush with glockenspiel and soft guitar"},
		[]string{"music box", "celesta", "glockenspiel"}, []string{"crib", "cradle", "goodnight", "baby"}},
	{"Kids", "Children's", 110, 136, 0.7, 0.2, []string{"Playful", "Happy", "Funny"},
		[]string{"a bouncy tune with kazoo and xylophone", "silly sound effects and a singalong for the playground", "cartoonish tuba and hand percussion"},
		[]string{"xylophone", "kazoo", "tuba"}, []string{"playground", "cartoon", "toddlers", "silly"}},
	{"Holiday", "Christmas", 90, 130, 0.6, 0.3, []string{"Happy", "Nostalgic", "Peaceful"},
		[]string{"sleigh bells and a warm fireside melody", "jingling bells, brass and a cosy carol feel", "snowfall chimes and a festive celesta"},
		[]string{"sleigh bells", "celesta", "brass"}, []string{"festive", "snow", "december", "carols"}},
	{"Blues", "Delta Blues", 64, 96, 0.8, 0, []string{"Melancholic", "Sad", "Confident"},
		[]string{"a slide guitar on a porch by the Mississippi", "a gritty twelve-bar shuffle with harmonica", "a weary growl and a bottleneck guitar"},
		[]string{"slide guitar", "harmonica"}, []string{"mississippi", "twelve bar", "juke joint", "porch"}},
	{"Funk", "Funk", 96, 116, 0.6, 0, []string{"Confident", "Energetic", "Playful"},
		[]string{"slap bass and chicken-scratch guitar", "a tight pocket with clavinet and horn stabs", "a syncopated strut with wah guitar"},
		[]string{"bass guitar", "clavinet", "horns"}, []string{"strut", "seventies", "disco ball", "wah"}},
}

// moodText paraphrases each mood without naming it.
var moodText = map[string][]string{
	"Happy":       {"full of sunshine and smiles", "cheerful from the first bar", "a grin you can hear"},
	"Uplifting":   {"lifts you higher with every chorus", "rising and full of light", "raises spirits and heads"},
	"Energetic":   {"bursting with drive", "restless and full of power", "keeps the adrenaline pumping"},
	"Playful":     {"cheeky and bouncing", "full of mischief and games", "light-footed and teasing"},
	"Hopeful":     {"looking toward a brighter tomorrow", "optimistic, with a sense of promise", "a quiet faith that things will turn out well"},
	"Romantic":    {"tender and in love", "made for two hearts", "affectionate, like holding hands"},
	"Relaxed":     {"easygoing and unbothered", "takes its time, feet up", "loose and laid-back"},
	"Peaceful":    {"serene and still", "tranquil as a lake at dawn", "gentle and untroubled"},
	"Dreamy":      {"floating and hazy", "like drifting between sleep and waking", "soft-focus and weightless"},
	"Sad":         {"heavy with sorrow", "tearful and heartbroken", "grieving what is gone"},
	"Melancholic": {"wistful and bittersweet", "a pensive, rainy-day ache", "longing for what was"},
	"Dark":        {"shadowy and ominous", "sinister and brooding", "grim, with menace underneath"},
	"Tense":       {"nervous and on edge", "the suspense keeps tightening", "anxious, like a held breath"},
	"Mysterious":  {"enigmatic and curious", "full of secrets", "a puzzle in the fog"},
	"Epic":        {"grand and larger than life", "monumental and heroic", "majestic on a huge scale"},
	"Aggressive":  {"furious and hostile", "full of rage", "brutal and in your face"},
	"Sentimental": {"tender with memories", "touching and heartfelt", "moving, close to tears in a good way"},
	"Nostalgic":   {"a throwback to old days", "reminiscing about childhood summers", "memories in faded colour"},
	"Sensual":     {"sultry and seductive", "slow-burning and steamy", "steamy and intimate"},
	"Sexy":        {"flirty and seductive", "hot, slinky and sultry", "a come-hither strut"},
	"Funny":       {"goofy and silly", "comic, full of pratfalls", "a wink and a laugh"},
	"Scary":       {"terrifying and creepy", "dread in every corner", "the stuff of nightmares"},
	"Triumphant":  {"victorious and proud", "a champion's moment", "glory after the struggle"},
	"Confident":   {"swaggering and bold", "cool and self-assured", "walks in like it owns the room"},
	"Spiritual":   {"devout and sacred", "prayerful and reverent", "holy and full of grace"},
	"Dramatic":    {"stormy and passionate", "theatrical, every note a gesture", "intense and full of pathos"},
}

// vocalText says who sings without naming the vocals value.
var vocalText = map[string][]string{
	catalog.VocalsFemale: {"a woman sings the lead", "her voice carries the melody", "sung by a soprano", "a girl's voice over the top"},
	catalog.VocalsMale:   {"a man sings the lead", "his voice carries the melody", "sung by a baritone", "a guy's voice over the top"},
	catalog.VocalsMixed:  {"a man and a woman trade verses", "he and she sing it together", "a duet of two voices, his and hers"},
	catalog.VocalsInstrumental: {"no words at all", "nobody sings", "purely played, without a singer's voice",
		"all instruments, nothing sung"},
}

var choirText = []string{"backed by a full choir", "a chorus of many voices joins in", "with a choir of dozens behind"}

// tempoText says the pace in words, by tempo band.
var tempoText = map[string][]string{
	catalog.TempoSlow:   {"at an unhurried crawl", "at a leisurely pace"},
	catalog.TempoMedium: {"at a walking pace", "at a steady stride"},
	catalog.TempoFast:   {"at a breakneck pace", "racing along"},
}

var titleA = []string{"Silver", "Paper", "Hollow", "Golden", "Quiet", "Broken", "Distant", "Crimson", "Velvet", "Winter",
	"Northern", "Burning", "Glass", "Wandering", "Little", "Electric", "Last", "Open", "Falling", "Secret"}
var titleN = []string{"Harbor", "Lanterns", "Orchard", "Signals", "Rivers", "Satellites", "Letters", "Meadow", "Horizon", "Mirrors",
	"Streets", "Embers", "Islands", "Footsteps", "Windows", "Ghosts", "Kingdom", "Tides", "Compass", "Feathers"}
var artistF = []string{"Mara", "Theo", "Juno", "Idris", "Lena", "Otis", "Rosa", "Kai", "Nell", "Ezra"}
var artistL = []string{"Vale", "Okafor", "Lindqvist", "Moreau", "Tanaka", "Quinn", "Ferreira", "Holt", "Baptiste", "Ruiz"}

// Generate builds n tracks from seed.
func Generate(n int, seed uint64) Catalog {
	r := rand.New(rand.NewPCG(seed, 0x7a2))
	c := Catalog{Truth: map[string]Truth{}}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	for i := range n {
		st := styles[i%len(styles)]
		mood := st.moods[r.IntN(min(2, len(st.moods)))]
		if r.IntN(4) == 0 {
			mood = pick(st.moods)
		}
		second := ""
		if r.IntN(3) > 0 {
			for second == "" || second == mood {
				second = pick(st.moods)
			}
		}
		bpm := float64(st.bpmLo + r.IntN(st.bpmHi-st.bpmLo+1))
		vocals := catalog.VocalsInstrumental
		if r.Float64() < st.vocalChance {
			switch x := r.IntN(10); {
			case x < 4:
				vocals = catalog.VocalsFemale
			case x < 8:
				vocals = catalog.VocalsMale
			default:
				vocals = catalog.VocalsMixed
			}
		}
		choir := r.Float64() < st.choirChance
		if choir && vocals == catalog.VocalsInstrumental {
			vocals = catalog.VocalsMixed
		}
		var sentences []string
		sentences = append(sentences, pick(st.sound), pick(moodText[mood]))
		if second != "" && r.IntN(2) == 0 {
			sentences = append(sentences, pick(moodText[second]))
		}
		if vocals != catalog.VocalsInstrumental || r.IntN(2) == 0 {
			sentences = append(sentences, pick(vocalText[vocals]))
		}
		if choir {
			sentences = append(sentences, pick(choirText))
		}
		if r.IntN(2) == 0 {
			sentences = append(sentences, pick(tempoText[catalog.TempoDescriptor(bpm)]))
		}
		r.Shuffle(len(sentences)-1, func(a, b int) { sentences[a+1], sentences[b+1] = sentences[b+1], sentences[a+1] })
		for k, s := range sentences {
			sentences[k] = strings.ToUpper(s[:1]) + s[1:]
		}
		tags := []string{pick(st.tags), pick(st.tags), st.instruments[r.IntN(len(st.instruments))]}
		if tags[0] == tags[1] {
			tags = tags[1:]
		}
		title := pick(titleA) + " " + pick(titleN)
		name := fmt.Sprintf("%s %03d", title, i+1)
		artist := pick(artistF) + " " + pick(artistL)
		c.Tracks = append(c.Tracks, manifest.Track{
			Name: name, Genre: st.genre, Subgenre: st.name, Mood: mood, SecondaryMood: second,
			Tempo: &bpm, Vocals: vocals, Description: strings.Join(sentences, ". ") + ".", Tags: tags,
			Artist:     catalog.Artist{Name: artist, Slug: manifest.Slug(artist)},
			AccessTier: string(catalog.TierFree), Audio: fmt.Sprintf("audio/t2-%03d.wav", i+1),
		})
		c.Truth[name] = Truth{Choir: choir, Instruments: st.instruments}
	}
	return c
}

// FacetNames are the taxonomy's facet values (genres, subgenres, moods)
// and the vocals values: the words the tracks' text never uses.
func FacetNames() []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, st := range styles {
		add(st.genre)
		add(st.name)
		for _, m := range st.moods {
			add(m)
		}
	}
	for m := range moodText {
		add(m)
	}
	for _, v := range []string{catalog.VocalsInstrumental, catalog.VocalsFemale, catalog.VocalsMale, catalog.VocalsMixed} {
		add(v)
	}
	slices.Sort(out)
	return out
}
