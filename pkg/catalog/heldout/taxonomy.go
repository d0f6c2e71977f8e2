package heldout

// The held-out library's taxonomy: genres and their subgenres, each with
// the demo style its audio is rendered in (so audio depends on the genre),
// its tempo range, the moods it takes, how often and by whom it is sung,
// the instruments it is played on, its base energy, and two phrases for
// what it sounds like.

// Latent vocals: who sings, which the catalog's vocals facet flattens
// (a duet and a choir are both "mixed").
const (
	VoiceNone   = "none"
	VoiceMale   = "male"
	VoiceFemale = "female"
	VoiceDuet   = "duet"
	VoiceChoir  = "choir"
)

type subgenre struct {
	genre, name  string
	sound        string // the demo style (demo.StyleNames) the audio is rendered in
	bpmLo, bpmHi int
	moods        []string
	sung         float64  // chance that a track is sung
	voices       []string // who sings when it is
	instruments  []string // the first always plays, one or two others join it
	energy       float64  // base energy of the style, 0..1
	soundsLike   []string // what it sounds like, in other words than its name
}

var subgenres = []subgenre{
	{"Electronic", "Chillout", "Ambient Electronic", 80, 100, []string{"Calm", "Dreamy", "Peaceful", "Hopeful"}, 0.3, []string{VoiceFemale},
		[]string{"synth pads", "electric piano", "field recordings", "soft synth bass"}, 0.3,
		[]string{"the hum of a beach bar after the crowds have gone", "sun-warmed pads over a lazy kick"}},
	{"Electronic", "Deep House", "House", 118, 124, []string{"Energetic", "Happy", "Dreamy", "Romantic"}, 0.4, []string{VoiceFemale, VoiceMale},
		[]string{"drum machine", "synth bass", "electric piano", "chopped vocal samples"}, 0.7,
		[]string{"a warm thump from a basement sound system", "rolling bass and soft chords that never stop nodding"}},
	{"Electronic", "Electro", "Techno", 126, 138, []string{"Dark", "Tense", "Energetic", "Aggressive"}, 0.1, []string{VoiceMale},
		[]string{"drum machine", "analog synth", "modular sequencer", "synth bass"}, 0.85,
		[]string{"machines locked in a cold loop", "steel-grey sequences and a stomping kick"}},
	{"Electronic", "Breakbeat", "Drum & Bass", 165, 175, []string{"Energetic", "Tense", "Aggressive", "Uplifting"}, 0.3, []string{VoiceFemale},
		[]string{"chopped drum breaks", "sub bass", "synth stabs"}, 0.9,
		[]string{"chopped-up drums tumbling over a deep sub", "a rush of broken rhythms"}},

	{"Hip Hop", "Jazz Rap", "Boom Bap", 85, 95, []string{"Playful", "Melancholic", "Calm", "Energetic"}, 0.85, []string{VoiceMale, VoiceMale, VoiceFemale},
		[]string{"sampled piano", "upright bass", "dusty drums", "muted horns"}, 0.55,
		[]string{"crate-dug samples and a lazy snare", "a record-shop loop with rhymes on top"}},
	{"Hip Hop", "Drill", "Trap", 138, 148, []string{"Dark", "Aggressive", "Tense"}, 0.85, []string{VoiceMale},
		[]string{"sliding 808 bass", "skittering hi-hats", "glassy bells"}, 0.85,
		[]string{"gliding sub bass and clipped, cold percussion", "a menacing street beat"}},
	{"Hip Hop", "Chillhop", "Lo-fi Hip Hop", 70, 86, []string{"Calm", "Melancholic", "Dreamy", "Peaceful"}, 0.15, []string{VoiceFemale},
		[]string{"electric piano", "dusty drums", "clean guitar", "vinyl crackle"}, 0.3,
		[]string{"warm tape hiss and a lazy head-nod", "a crackling cassette loop"}},

	{"Rock", "Alternative", "Indie Rock", 110, 140, []string{"Hopeful", "Melancholic", "Energetic", "Happy"}, 0.8, []string{VoiceMale, VoiceFemale},
		[]string{"electric guitar", "bass guitar", "drum kit", "tambourine"}, 0.7,
		[]string{"scrappy guitars from a rehearsal room", "a four-piece band playing it straight"}},
	{"Rock", "Metal", "Hard Rock", 130, 160, []string{"Aggressive", "Dark", "Epic", "Energetic"}, 0.75, []string{VoiceMale},
		[]string{"down-tuned guitars", "double kick drums", "bass guitar"}, 1.0,
		[]string{"a wall of down-tuned guitars", "thunderous drums and screaming leads"}},
	{"Rock", "Garage Punk", "Punk", 165, 190, []string{"Aggressive", "Energetic", "Playful"}, 0.85, []string{VoiceMale, VoiceDuet},
		[]string{"electric guitar", "drum kit", "bass guitar"}, 0.95,
		[]string{"three chords and a broken amp", "a sweaty two-minute blast"}},

	{"Pop", "Piano Ballad", "Acoustic Pop", 66, 86, []string{"Romantic", "Sad", "Hopeful", "Melancholic"}, 0.95, []string{VoiceFemale, VoiceMale, VoiceDuet, VoiceDuet},
		[]string{"grand piano", "string section", "soft brushes"}, 0.35,
		[]string{"a single spotlight on a piano and a voice", "a hushed song built to still a room"}},
	{"Pop", "Electropop", "Synth Pop", 100, 124, []string{"Happy", "Dreamy", "Romantic", "Uplifting"}, 0.85, []string{VoiceFemale, VoiceMale, VoiceDuet},
		[]string{"synthesizers", "drum machine", "sparkling arpeggios"}, 0.7,
		[]string{"glossy chart-ready shimmer", "a radio hook wrapped in bright synths"}},
	{"Pop", "Kids Pop", "Dance Pop", 110, 128, []string{"Happy", "Playful", "Energetic"}, 0.6, []string{VoiceDuet, VoiceFemale},
		[]string{"ukulele", "glockenspiel", "hand claps", "whistling"}, 0.75,
		[]string{"a sing-along for the smallest listeners", "bouncy nursery-bright tunes"}},
	{"Pop", "Soul", "Smooth Jazz", 76, 100, []string{"Uplifting", "Hopeful", "Romantic", "Happy"}, 0.95, []string{VoiceFemale, VoiceMale, VoiceChoir, VoiceChoir, VoiceDuet},
		[]string{"hammond organ", "bass guitar", "drum kit", "backing singers"}, 0.55,
		[]string{"Sunday-morning warmth with a gospel heart", "vintage grooves and big, rich singing"}},

	{"Cinematic", "Action Score", "Epic Orchestral", 110, 140, []string{"Epic", "Tense", "Aggressive", "Energetic"}, 0.35, []string{VoiceChoir},
		[]string{"brass", "taiko drums", "staccato strings", "timpani"}, 0.95,
		[]string{"hammering percussion and brass blasts", "a full orchestra at a gallop"}},
	{"Cinematic", "Horror", "Suspense", 55, 85, []string{"Tense", "Dark", "Mysterious"}, 0.15, []string{VoiceChoir},
		[]string{"dissonant strings", "prepared piano", "low drones", "music box"}, 0.45,
		[]string{"scraping strings and a creaking hush", "a lullaby gone wrong"}},
	{"Cinematic", "Nature Score", "Documentary", 70, 100, []string{"Hopeful", "Calm", "Peaceful", "Uplifting"}, 0, nil,
		[]string{"piano", "strings", "harp", "wooden flute"}, 0.35,
		[]string{"patient strings for wide open landscapes", "patiently building themes for the natural world"}},
	{"Cinematic", "Fantasy", "Epic Orchestral", 70, 100, []string{"Epic", "Mysterious", "Hopeful", "Dreamy"}, 0.5, []string{VoiceChoir, VoiceChoir, VoiceFemale},
		[]string{"harp", "french horns", "strings", "wooden flute"}, 0.6,
		[]string{"a storybook orchestra", "enchanted woods and distant towers in sound"}},

	{"Jazz", "Bebop", "Swing", 150, 190, []string{"Playful", "Energetic", "Happy"}, 0.1, []string{VoiceMale},
		[]string{"saxophone", "trumpet", "upright bass", "ride cymbal"}, 0.75,
		[]string{"horns darting through quick changes", "a smoky quintet showing off"}},
	{"Jazz", "Lounge", "Smooth Jazz", 75, 100, []string{"Romantic", "Calm", "Dreamy"}, 0.35, []string{VoiceFemale, VoiceMale},
		[]string{"saxophone", "electric piano", "brushed drums", "upright bass"}, 0.35,
		[]string{"the hotel bar long after midnight", "velvet chairs and low lamps"}},
	{"Jazz", "Latin Jazz", "Bossa Nova", 110, 135, []string{"Romantic", "Happy", "Playful", "Calm"}, 0.45, []string{VoiceFemale, VoiceMale},
		[]string{"nylon-string guitar", "congas", "flute", "piano"}, 0.55,
		[]string{"a breeze off the Rio coast", "swaying rhythms from a seaside café"}},

	{"Classical", "Choral", "String Ensemble", 55, 85, []string{"Peaceful", "Sad", "Epic", "Hopeful"}, 1, []string{VoiceChoir},
		[]string{"choir", "pipe organ", "strings"}, 0.4,
		[]string{"voices rising under a vaulted ceiling", "a hymn sung by many"}},
	{"Classical", "Chamber", "String Ensemble", 60, 110, []string{"Romantic", "Sad", "Hopeful", "Melancholic", "Playful"}, 0, nil,
		[]string{"violin", "cello", "viola", "harpsichord"}, 0.4,
		[]string{"a string quartet in a candlelit salon", "four players reading from old parts"}},
	{"Classical", "Nocturne", "Solo Piano", 55, 90, []string{"Calm", "Sad", "Romantic", "Melancholic", "Peaceful", "Dreamy"}, 0, nil,
		[]string{"felt piano"}, 0.2,
		[]string{"one piano in an empty room", "keys played softly after nightfall"}},

	{"Folk", "Celtic", "Country", 100, 140, []string{"Happy", "Playful", "Hopeful", "Melancholic"}, 0.4, []string{VoiceFemale, VoiceMale},
		[]string{"fiddle", "tin whistle", "bodhrán", "harp"}, 0.6,
		[]string{"a reel from a pub in the west of Ireland", "jigs from misty green hills"}},
	{"Folk", "Americana", "Country", 90, 130, []string{"Hopeful", "Happy", "Sad", "Melancholic"}, 0.85, []string{VoiceMale, VoiceFemale, VoiceDuet},
		[]string{"banjo", "acoustic guitar", "harmonica", "pedal steel"}, 0.55,
		[]string{"dust, porches and long highways", "a back-road band on a wooden stage"}},
	{"Folk", "Campfire Folk", "Singer-Songwriter", 76, 110, []string{"Melancholic", "Hopeful", "Romantic", "Calm"}, 0.95, []string{VoiceMale, VoiceFemale, VoiceDuet},
		[]string{"acoustic guitar", "harmonica", "cello"}, 0.35,
		[]string{"a voice and a guitar by the fire", "songs passed hand to hand"}},

	{"Corporate", "Motivational", "Upbeat Corporate", 110, 128, []string{"Uplifting", "Hopeful", "Happy", "Energetic"}, 0.05, []string{VoiceFemale},
		[]string{"piano", "hand claps", "synth plucks", "acoustic guitar"}, 0.7,
		[]string{"a sunny pulse for a brand film", "clean, confident and forward-moving"}},
	{"Corporate", "Tech Explainer", "Inspiring", 95, 115, []string{"Hopeful", "Calm", "Playful", "Uplifting"}, 0, nil,
		[]string{"marimba", "synth plucks", "piano", "soft synth"}, 0.5,
		[]string{"tidy plucks for animated diagrams", "a friendly pulse under a voice-over"}},

	{"Ambient", "Sleep", "Meditation", 50, 70, []string{"Peaceful", "Calm", "Dreamy"}, 0.1, []string{VoiceFemale},
		[]string{"soft pads", "music box", "wind chimes", "harp"}, 0.1,
		[]string{"long soft tones that hardly change", "a lazy tide of sound"}},
	{"Ambient", "Space", "Drone", 50, 70, []string{"Mysterious", "Dark", "Calm", "Dreamy"}, 0.05, []string{VoiceFemale},
		[]string{"drones", "synth pads", "bells"}, 0.25,
		[]string{"the hum of the void between planets", "vast unmoving tones with no ground beneath them"}},
	{"Ambient", "Nature Soundscape", "Ambient Electronic", 60, 80, []string{"Peaceful", "Calm", "Hopeful"}, 0, nil,
		[]string{"field recordings", "birdsong", "wooden flute", "wind chimes"}, 0.2,
		[]string{"a recorded morning in the woods", "streams, birds and soft tones"}},
}

// moodEnergy is what a mood does to a track's energy (0..1) and whether it
// is in a minor key.
var moodEnergy = map[string]struct {
	energy float64
	minor  bool
}{
	"Happy": {0.7, false}, "Uplifting": {0.75, false}, "Energetic": {0.9, false}, "Playful": {0.6, false},
	"Hopeful": {0.55, false}, "Romantic": {0.4, false}, "Calm": {0.25, false}, "Peaceful": {0.2, false},
	"Dreamy": {0.35, false}, "Sad": {0.3, true}, "Melancholic": {0.35, true}, "Dark": {0.65, true},
	"Tense": {0.6, true}, "Mysterious": {0.45, true}, "Epic": {0.95, true}, "Aggressive": {1.0, true},
}
