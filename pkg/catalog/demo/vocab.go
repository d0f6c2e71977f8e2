package demo

// The demo catalog's vocabulary: genres with their subgenres and how each
// subgenre is played, moods and what they do to the music, translations of
// every name into the two demo locales, and the word lists titles, artists,
// rights and descriptions are drawn from.

// Locales the demo translates into.
var Locales = []string{"de", "ja"}

// names maps an English classification name to its translations.
type names map[string][2]string // de, ja

var translations = names{
	"Electronic": {"Elektronisch", "エレクトロニック"}, "House": {"House", "ハウス"}, "Techno": {"Techno", "テクノ"},
	"Synthwave": {"Synthwave", "シンセウェイヴ"}, "Drum & Bass": {"Drum & Bass", "ドラムンベース"},
	"Ambient Electronic": {"Elektronisches Ambient", "アンビエント・エレクトロニック"},
	"Hip Hop":            {"Hip-Hop", "ヒップホップ"}, "Boom Bap": {"Boom Bap", "ブーンバップ"}, "Trap": {"Trap", "トラップ"},
	"Lo-fi Hip Hop": {"Lo-Fi-Hip-Hop", "ローファイ・ヒップホップ"},
	"Rock":          {"Rock", "ロック"}, "Indie Rock": {"Indie-Rock", "インディーロック"}, "Hard Rock": {"Hardrock", "ハードロック"},
	"Punk": {"Punk", "パンク"},
	"Pop":  {"Pop", "ポップ"}, "Synth Pop": {"Synthpop", "シンセポップ"}, "Dance Pop": {"Dance-Pop", "ダンスポップ"},
	"Acoustic Pop": {"Akustik-Pop", "アコースティックポップ"},
	"Cinematic":    {"Filmmusik", "シネマティック"}, "Epic Orchestral": {"Episch-orchestral", "エピック・オーケストラ"},
	"Suspense": {"Spannung", "サスペンス"}, "Documentary": {"Dokumentarfilm", "ドキュメンタリー"},
	"Jazz": {"Jazz", "ジャズ"}, "Swing": {"Swing", "スウィング"}, "Smooth Jazz": {"Smooth Jazz", "スムースジャズ"},
	"Bossa Nova": {"Bossa Nova", "ボサノヴァ"},
	"Classical":  {"Klassik", "クラシック"}, "Solo Piano": {"Klavier solo", "ピアノソロ"},
	"String Ensemble": {"Streicherensemble", "弦楽アンサンブル"},
	"Folk":            {"Folk", "フォーク"}, "Singer-Songwriter": {"Singer-Songwriter", "シンガーソングライター"},
	"Country":   {"Country", "カントリー"},
	"Corporate": {"Unternehmensmusik", "コーポレート"}, "Upbeat Corporate": {"Beschwingte Unternehmensmusik", "アップビート・コーポレート"},
	"Inspiring": {"Inspirierend", "インスパイアリング"},
	"Ambient":   {"Ambient", "アンビエント"}, "Drone": {"Drone", "ドローン"}, "Meditation": {"Meditation", "瞑想"},

	"Happy": {"Fröhlich", "ハッピー"}, "Uplifting": {"Erhebend", "高揚感"}, "Energetic": {"Energiegeladen", "エネルギッシュ"},
	"Playful": {"Verspielt", "遊び心"}, "Hopeful": {"Hoffnungsvoll", "希望"}, "Romantic": {"Romantisch", "ロマンチック"},
	"Calm": {"Ruhig", "穏やか"}, "Peaceful": {"Friedlich", "平和"}, "Dreamy": {"Verträumt", "夢見心地"},
	"Sad": {"Traurig", "悲しい"}, "Melancholic": {"Melancholisch", "哀愁"}, "Dark": {"Düster", "ダーク"},
	"Tense": {"Angespannt", "緊張感"}, "Mysterious": {"Geheimnisvoll", "ミステリアス"}, "Epic": {"Episch", "壮大"},
	"Aggressive": {"Aggressiv", "アグレッシブ"},
}

// How a part is played.
type drumStyle int

const (
	drumsNone drumStyle = iota
	drumsFourFloor
	drumsBackbeat
	drumsBoomBap
	drumsTrap
	drumsDnB
	drumsPunk
	drumsSwing
	drumsBossa
	drumsTaiko
	drumsPulse // a soft tick on every beat, for music without a kit
)

type bassStyle int

const (
	bassNone bassStyle = iota
	bassRoots
	bassEighths
	bassOffbeat
	bassRootFifth
	bassWalking
	bass808
)

type harmonyStyle int

const (
	harmonyPad harmonyStyle = iota
	harmonyStabs
	harmonyArp
	harmonyStrum
	harmonyComp
	harmonyPulse
	harmonyPower
)

type timbre int

const (
	timbreSine timbre = iota
	timbreSoft
	timbreSaw
	timbreSquare
	timbreOrgan
	timbrePiano
	timbreBell
	timbrePluck
	timbreStrings
)

// timbreNames describe the lead instrument in descriptions and tags.
var timbreNames = map[timbre]string{
	timbreSine: "soft synth", timbreSoft: "electric piano", timbreSaw: "synth lead", timbreSquare: "retro square lead",
	timbreOrgan: "organ", timbrePiano: "piano", timbreBell: "bells", timbrePluck: "plucked guitar", timbreStrings: "strings",
}

// style is how a subgenre is played.
type style struct {
	drums          drumStyle
	bass           bassStyle
	harmony        harmonyStyle
	chords, lead   timbre
	bpmLo, bpmHi   int
	vocalChance    float64
	moods          []string
	words, useCase []string // description and tag vocabulary
}

type genre struct {
	name      string
	subgenres []subgenre
}

type subgenre struct {
	name string
	style
}

var genres = []genre{
	{"Electronic", []subgenre{
		{"House", style{drumsFourFloor, bassOffbeat, harmonyStabs, timbreOrgan, timbrePluck, 118, 128, 0.3,
			[]string{"Energetic", "Happy", "Uplifting", "Playful"}, []string{"club", "dance", "groovy", "four-on-the-floor"}, []string{"fashion", "party", "nightlife", "fitness"}}},
		{"Techno", style{drumsFourFloor, bassEighths, harmonyStabs, timbreSaw, timbreSaw, 124, 134, 0.05,
			[]string{"Dark", "Tense", "Energetic", "Aggressive"}, []string{"driving", "hypnotic", "warehouse", "minimal"}, []string{"tech", "gaming", "night", "racing"}}},
		{"Synthwave", style{drumsBackbeat, bassEighths, harmonyPad, timbreStrings, timbreSaw, 84, 118, 0.3,
			[]string{"Dreamy", "Melancholic", "Hopeful", "Mysterious"}, []string{"retro", "80s", "neon", "analog synth"}, []string{"night drive", "gaming", "tech", "city"}}},
		{"Drum & Bass", style{drumsDnB, bassRoots, harmonyPad, timbreStrings, timbrePluck, 160, 176, 0.25,
			[]string{"Energetic", "Tense", "Aggressive", "Uplifting"}, []string{"breakbeat", "fast", "rolling", "sub bass"}, []string{"extreme sports", "racing", "action", "gaming"}}},
		{"Ambient Electronic", style{drumsPulse, bassRoots, harmonyArp, timbreStrings, timbreBell, 64, 86, 0.1,
			[]string{"Calm", "Dreamy", "Peaceful", "Mysterious"}, []string{"atmospheric", "floating", "textured", "spacious"}, []string{"nature", "tech", "meditation", "timelapse"}}},
	}},
	{"Hip Hop", []subgenre{
		{"Boom Bap", style{drumsBoomBap, bassRoots, harmonyComp, timbreSoft, timbrePiano, 84, 96, 0.8,
			[]string{"Playful", "Dark", "Melancholic", "Energetic"}, []string{"sampled", "head-nodding", "vinyl", "old school"}, []string{"urban", "street", "skateboarding", "vlog"}}},
		{"Trap", style{drumsTrap, bass808, harmonyPad, timbreBell, timbreBell, 130, 150, 0.8,
			[]string{"Dark", "Aggressive", "Tense", "Energetic"}, []string{"808", "hi-hat rolls", "hard-hitting", "modern"}, []string{"sports", "fashion", "gaming", "urban"}}},
		{"Lo-fi Hip Hop", style{drumsBoomBap, bassRoots, harmonyComp, timbreSoft, timbreSoft, 70, 88, 0.2,
			[]string{"Calm", "Melancholic", "Dreamy", "Peaceful"}, []string{"lo-fi", "chill", "dusty", "jazzy chords"}, []string{"study", "podcast", "cooking", "vlog"}}},
	}},
	{"Rock", []subgenre{
		{"Indie Rock", style{drumsBackbeat, bassEighths, harmonyStrum, timbrePluck, timbreSquare, 110, 140, 0.7,
			[]string{"Hopeful", "Happy", "Melancholic", "Energetic"}, []string{"jangly guitars", "indie", "garage", "heartfelt"}, []string{"road trip", "youth", "travel", "vlog"}}},
		{"Hard Rock", style{drumsBackbeat, bassEighths, harmonyPower, timbreSaw, timbreSaw, 120, 150, 0.7,
			[]string{"Aggressive", "Energetic", "Epic", "Dark"}, []string{"distorted guitars", "powerful", "anthem", "riff"}, []string{"sports", "action", "motorsport", "trailer"}}},
		{"Punk", style{drumsPunk, bassEighths, harmonyPower, timbreSaw, timbreSquare, 160, 190, 0.8,
			[]string{"Aggressive", "Energetic", "Playful"}, []string{"fast", "raw", "rebellious", "loud"}, []string{"skateboarding", "extreme sports", "youth", "party"}}},
	}},
	{"Pop", []subgenre{
		{"Synth Pop", style{drumsBackbeat, bassEighths, harmonyPad, timbreStrings, timbreSquare, 100, 124, 0.8,
			[]string{"Happy", "Dreamy", "Romantic", "Uplifting"}, []string{"catchy", "glossy", "synths", "radio"}, []string{"fashion", "lifestyle", "commercial", "dance"}}},
		{"Dance Pop", style{drumsFourFloor, bassOffbeat, harmonyStabs, timbreSaw, timbrePluck, 118, 128, 0.85,
			[]string{"Happy", "Energetic", "Playful", "Uplifting"}, []string{"catchy", "summer", "feel-good", "chart"}, []string{"party", "fitness", "fashion", "commercial"}}},
		{"Acoustic Pop", style{drumsBackbeat, bassRootFifth, harmonyStrum, timbrePluck, timbrePiano, 86, 110, 0.8,
			[]string{"Happy", "Romantic", "Hopeful", "Peaceful"}, []string{"acoustic guitar", "warm", "sunny", "organic"}, []string{"wedding", "family", "travel", "lifestyle"}}},
	}},
	{"Cinematic", []subgenre{
		{"Epic Orchestral", style{drumsTaiko, bassRoots, harmonyPad, timbreStrings, timbreSaw, 70, 100, 0.05,
			[]string{"Epic", "Tense", "Hopeful", "Dark"}, []string{"orchestral", "heroic", "percussion", "brass"}, []string{"trailer", "gaming", "sports", "adventure"}}},
		{"Suspense", style{drumsPulse, bassRoots, harmonyPulse, timbreStrings, timbreBell, 60, 90, 0,
			[]string{"Tense", "Mysterious", "Dark"}, []string{"suspenseful", "ticking", "eerie", "thriller"}, []string{"crime", "documentary", "horror", "investigation"}}},
		{"Documentary", style{drumsPulse, bassRoots, harmonyArp, timbrePiano, timbrePiano, 80, 110, 0,
			[]string{"Hopeful", "Calm", "Melancholic", "Uplifting"}, []string{"thoughtful", "piano", "evolving", "cinematic"}, []string{"documentary", "nature", "science", "history"}}},
	}},
	{"Jazz", []subgenre{
		{"Swing", style{drumsSwing, bassWalking, harmonyComp, timbrePiano, timbreOrgan, 120, 180, 0.3,
			[]string{"Playful", "Happy", "Energetic"}, []string{"swinging", "big band", "walking bass", "vintage"}, []string{"retro", "restaurant", "comedy", "cooking"}}},
		{"Smooth Jazz", style{drumsBackbeat, bassRoots, harmonyComp, timbreSoft, timbreSoft, 80, 100, 0.3,
			[]string{"Romantic", "Calm", "Dreamy"}, []string{"smooth", "saxophone", "late night", "lounge"}, []string{"restaurant", "hotel", "romance", "lifestyle"}}},
		{"Bossa Nova", style{drumsBossa, bassRootFifth, harmonyStrum, timbrePluck, timbreSoft, 110, 140, 0.5,
			[]string{"Romantic", "Calm", "Happy", "Playful"}, []string{"brazilian", "nylon guitar", "breezy", "latin"}, []string{"travel", "beach", "cooking", "summer"}}},
	}},
	{"Classical", []subgenre{
		{"Solo Piano", style{drumsNone, bassRoots, harmonyArp, timbrePiano, timbrePiano, 60, 100, 0,
			[]string{"Sad", "Calm", "Romantic", "Melancholic", "Peaceful"}, []string{"solo piano", "intimate", "reflective", "classical"}, []string{"wedding", "documentary", "memories", "drama"}}},
		{"String Ensemble", style{drumsNone, bassRoots, harmonyPad, timbreStrings, timbreStrings, 60, 110, 0,
			[]string{"Sad", "Epic", "Romantic", "Hopeful"}, []string{"strings", "chamber", "elegant", "classical"}, []string{"drama", "history", "wedding", "period film"}}},
	}},
	{"Folk", []subgenre{
		{"Singer-Songwriter", style{drumsPulse, bassRoots, harmonyStrum, timbrePluck, timbrePiano, 80, 120, 0.9,
			[]string{"Melancholic", "Hopeful", "Romantic", "Sad"}, []string{"acoustic", "storytelling", "intimate", "heartfelt"}, []string{"vlog", "family", "travel", "memories"}}},
		{"Country", style{drumsBackbeat, bassRootFifth, harmonyStrum, timbrePluck, timbrePluck, 100, 140, 0.8,
			[]string{"Happy", "Hopeful", "Playful", "Sad"}, []string{"americana", "twang", "banjo", "roadhouse"}, []string{"road trip", "western", "rural", "family"}}},
	}},
	{"Corporate", []subgenre{
		{"Upbeat Corporate", style{drumsFourFloor, bassEighths, harmonyArp, timbrePluck, timbreBell, 110, 128, 0.05,
			[]string{"Uplifting", "Happy", "Energetic", "Hopeful"}, []string{"positive", "motivational", "clean", "modern"}, []string{"corporate", "presentation", "startup", "advertising"}}},
		{"Inspiring", style{drumsBackbeat, bassRoots, harmonyArp, timbrePiano, timbrePiano, 90, 110, 0.05,
			[]string{"Hopeful", "Uplifting", "Calm"}, []string{"inspiring", "building", "piano", "emotional"}, []string{"corporate", "charity", "technology", "explainer"}}},
	}},
	{"Ambient", []subgenre{
		{"Drone", style{drumsPulse, bassRoots, harmonyPad, timbreStrings, timbreBell, 50, 70, 0.05,
			[]string{"Mysterious", "Dark", "Calm"}, []string{"drone", "dark ambient", "textural", "slow"}, []string{"space", "horror", "science", "installation"}}},
		{"Meditation", style{drumsPulse, bassRoots, harmonyPad, timbreSine, timbreBell, 55, 75, 0.1,
			[]string{"Peaceful", "Calm", "Dreamy"}, []string{"meditative", "singing bowls", "relaxing", "healing"}, []string{"yoga", "wellness", "sleep", "spa"}}},
	}},
}

// mood says what a mood does to the music.
type mood struct {
	minor  bool
	energy float64 // loudness and density, 0..1
	adj    string  // for descriptions
	tags   []string
}

var moods = map[string]mood{
	"Happy":       {false, 0.7, "cheerful", []string{"happy", "positive", "sunny"}},
	"Uplifting":   {false, 0.75, "uplifting", []string{"uplifting", "motivational", "positive"}},
	"Energetic":   {false, 0.9, "high-energy", []string{"energetic", "powerful", "driving"}},
	"Playful":     {false, 0.6, "playful", []string{"playful", "quirky", "fun"}},
	"Hopeful":     {false, 0.55, "hopeful", []string{"hopeful", "optimistic", "warm"}},
	"Romantic":    {false, 0.45, "romantic", []string{"romantic", "love", "tender"}},
	"Calm":        {false, 0.3, "calm", []string{"calm", "relaxing", "chill"}},
	"Peaceful":    {false, 0.25, "peaceful", []string{"peaceful", "serene", "gentle"}},
	"Dreamy":      {false, 0.4, "dreamy", []string{"dreamy", "floating", "nostalgic"}},
	"Sad":         {true, 0.3, "sad", []string{"sad", "emotional", "tearful"}},
	"Melancholic": {true, 0.4, "melancholic", []string{"melancholic", "bittersweet", "nostalgic"}},
	"Dark":        {true, 0.65, "dark", []string{"dark", "brooding", "ominous"}},
	"Tense":       {true, 0.6, "tense", []string{"tense", "suspense", "nervous"}},
	"Mysterious":  {true, 0.45, "mysterious", []string{"mysterious", "enigmatic", "curious"}},
	"Epic":        {true, 0.95, "epic", []string{"epic", "heroic", "grand"}},
	"Aggressive":  {true, 1.0, "aggressive", []string{"aggressive", "angry", "intense"}},
}

var titleAdjectives = []string{"Midnight", "Golden", "Neon", "Silent", "Electric", "Velvet", "Broken", "Endless", "Crimson",
	"Hidden", "Distant", "Wild", "Paper", "Glass", "Summer", "Winter", "Lucky", "Restless", "Silver", "Faded", "Burning",
	"Quiet", "Northern", "Open", "Little", "Last", "First", "Secret", "Rising", "Falling"}

var titleNouns = []string{"Drive", "Skyline", "Horizon", "Heartbeat", "River", "Signal", "Garden", "Echo", "Parade",
	"Harbor", "Machine", "Letters", "Lights", "Avenue", "Sunrise", "Orbit", "Pulse", "Canyon", "Ritual", "Tide", "Dream",
	"Frontier", "Memory", "Satellite", "Journey", "Storm", "Window", "Compass", "Festival", "Shadows"}

var artistNames = []string{"The Night Owls", "Clara Voss", "Metro Lines", "Juniper & Co", "Atlas Rivera", "Blue Static",
	"Odessa Grey", "Paper Tigers", "Nils Hartmann", "Solar Bloom", "Marisol", "Kite Collective", "Dune Avenue",
	"The Lanterns", "Ivy Marlowe", "Hollow Pines", "Vega Sound", "Amber Lake", "Milo Brandt", "North Harbor",
	"Felix Orchard", "Copper Coast", "Luna Park Trio", "Echo Valley", "Rosa Ventura", "The Cartographers",
	"Stellan Berg", "Quartz Hotel", "Nova Reyes", "Wild Clover", "Ada Sinclair", "Harbor Lights", "Theo Lindqvist",
	"Glass Animals Club", "Mara Chen", "Outer Banks", "Jonah Keats", "Silver Birch", "Iris Navarro", "Low Tide Radio"}

// jpArtists are the artists of the -JP source feed; some have names with
// no Latin letters at all.
var jpArtists = []string{"Sakura Beats", "夜明けバンド", "Kenji Mori", "東京ナイツ", "Yuki Aoyama", "Hoshino Sound"}

var labels = []string{"Demo Records", "Northern Lights Music", "Blue Room Audio", "Paper Moon Recordings", "Cascade Sound", "Tokyo Sound Works"}

var pros = []string{"ASCAP", "BMI", "GEMA", "PRS", "SACEM", "JASRAC", "SOCAN", "STIM"}

var writerFirst = []string{"Anna", "Ben", "Carla", "David", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jakob", "Keiko", "Lars", "Mina", "Noah", "Olga", "Pablo"}
var writerLast = []string{"Adler", "Brooks", "Costa", "Dahl", "Engel", "Fischer", "Garcia", "Hayashi", "Ivanova", "Jensen", "Kowalski", "Lund", "Moreau", "Nakamura", "Okafor", "Petrov"}

var publishers = []string{"Demo Music Publishing", "Evergreen Songs", "Lighthouse Publishing", "Blue Room Songs", "Tokyo Music Publishing", "Open Sky Editions"}

var lyricLines = []string{"we ride the night until the morning", "hold on to the light inside", "all the city lights are calling",
	"I remember every word you said", "we are young and we are running", "the river knows the way back home",
	"turn it up and let it go", "under the stars we found our way", "every heartbeat pulls me closer",
	"don't look back, the road is open", "we'll dance until the sun comes up", "lost in the echo of your name"}

var explicitLines = []string{"damn, we never gonna stop", "hell yeah, turn the volume up", "who the hell is gonna stop us now"}
