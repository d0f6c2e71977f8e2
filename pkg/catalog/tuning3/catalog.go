package tuning3

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/manifest"
)

// Truth is what a generated cue is beyond its facets: whether a choir
// sings on it, whether one instrument plays it alone, and its palette
// (the queries' wants read them).
type Truth struct {
	Choir   bool
	Solo    bool
	Palette []string // instrument keys (see family)
}

// Catalog is the generated catalog: manifest lines and each line's truth
// by track name.
type Catalog struct {
	Tracks []manifest.Track
	Truth  map[string]Truth // by manifest name (unique)
}

// Size is the default track count.
const Size = 320

// family is one cue family: a subgenre, how it is played and how the
// library's editor describes it.
type family struct {
	genre, sub   string
	bpmLo, bpmHi int
	sung, choir  float64  // chance of a lead voice, of a choir
	solo         bool     // one instrument alone
	moods        []string // the first two most likely
	palette      []string // instrument keys (Truth.Palette)
	feel         []string // how it is arranged and played
	imagery      []string // what it evokes
	fits         []string // where an editor would place it
}

// families is the taxonomy (30+ subgenres, mostly not the demo's nor
// tuning2's).
var families = []family{
	{"Electronic", "Future Bass", 140, 160, 0.4, 0, false, []string{"Joyful", "Inspiring", "Driving"},
		[]string{"supersaw chords", "chopped voice samples", "808 kick"},
		[]string{"wobbling supersaw chords that bloom on the drop", "pitched-up voice chops over a half-time beat", "glittering synth stabs and a big swelling build"},
		[]string{"confetti cannons over a packed crowd", "neon colours and phone lights in the air"},
		[]string{"energy drink spots", "festival aftermovies"}},
	{"Electronic", "Chillwave", 80, 100, 0.3, 0, false, []string{"Carefree", "Wistful", "Serene"},
		[]string{"warped synth pads", "drum machine", "chorus guitar"},
		[]string{"warped tape-like pads and a lazy drum machine", "a chorus-soaked guitar floating over soft pads", "sun-faded keys and a slow bouncing beat"},
		[]string{"a faded polaroid of a summer at the coast", "pastel skies over a boardwalk"},
		[]string{"lifestyle montages", "summer lookbooks"}},
	{"Electronic", "Dubstep", 138, 150, 0.15, 0, false, []string{"Fierce", "Driving", "Brooding"},
		[]string{"wobble bass", "drum machine"},
		[]string{"growling wobble bass and a heavy half-time snare", "screeching mid-range bass and a crushing drop", "metallic bass sweeps over a stomping beat"},
		[]string{"robots tearing through a city", "a concrete tunnel shaking"},
		[]string{"extreme sports edits", "game trailers"}},
	{"Electronic", "Chiptune", 120, 150, 0.05, 0, false, []string{"Whimsical", "Joyful", "Driving"},
		[]string{"square-wave lead", "noise-channel drums"},
		[]string{"bleeping square-wave melodies and noise-channel drums", "an 8-bit lead hopping over a tiny bassline", "pixel-perfect arpeggios at high speed"},
		[]string{"a little sprite leaping over pits", "coins spinning on a blue screen"},
		[]string{"indie game menus", "pixel art animation"}},
	{"Electronic", "Downtempo", 84, 96, 0.35, 0, false, []string{"Serene", "Sultry", "Carefree"},
		[]string{"rhodes", "sub bass", "shaker"},
		[]string{"a soft Rhodes over a slow, swaying beat", "deep sub bass, shakers and dubby echoes", "unhurried breakbeats under a warm haze"},
		[]string{"a rooftop at dusk with the city humming below", "linen curtains moving in a warm breeze"},
		[]string{"boutique hotel lobbies", "late cocktails"}},
	{"Rock", "Post-Rock", 70, 110, 0.1, 0, false, []string{"Majestic", "Wistful", "Inspiring"},
		[]string{"tremolo guitars", "drum kit", "bass guitar"},
		[]string{"tremolo-picked guitars climbing to a wall of noise", "delay-drenched guitars that swell for minutes", "quiet chiming guitars that erupt into crashing cymbals"},
		[]string{"a cliff edge above a stormy sea", "the last light over an empty highway"},
		[]string{"documentary climaxes", "adventure films"}},
	{"Rock", "Surf Rock", 140, 170, 0.2, 0, false, []string{"Carefree", "Joyful", "Driving"},
		[]string{"reverb twang guitar", "drum kit"},
		[]string{"spring-reverb twang guitar and a galloping snare", "dripping reverb leads and a rumbling low string", "a tremolo guitar riding a fast beat"},
		[]string{"longboards on a hot beach", "a convertible along a coast road"},
		[]string{"beach montages", "retro ads"}},
	{"Rock", "Punk Rock", 160, 190, 0.8, 0, false, []string{"Fierce", "Driving", "Carefree"},
		[]string{"distorted guitar", "drum kit"},
		[]string{"three chords, buzzsaw guitars and shouted gang choruses", "a two-minute blast of crashing drums and fuzz", "snotty, sneering guitars at full tilt"},
		[]string{"spray paint on a back wall", "a sweaty basement show"},
		[]string{"skate videos", "rebellious teen films"}},
	{"Pop", "Indie Pop", 100, 124, 0.85, 0, false, []string{"Joyful", "Carefree", "Tender"},
		[]string{"jangly guitar", "glockenspiel", "hand claps"},
		[]string{"jangly guitars, hand claps and a whistled hook", "a glockenspiel riff over a bouncing bassline", "bright bedroom-studio guitars and a sweet chorus"},
		[]string{"bikes through a sunny town", "a picnic blanket and a crush"},
		[]string{"offbeat brand spots", "coming-of-age films"}},
	{"Pop", "Power Ballad", 64, 84, 1, 0.15, false, []string{"Tender", "Inspiring", "Wistful"},
		[]string{"grand piano", "strings", "drum kit"},
		[]string{"a grand piano verse that swells into a huge chorus with strings", "a soaring key change after a hushed opening", "slow piano chords, then drums and a belted chorus"},
		[]string{"arms in the air under a single spotlight", "a long-awaited reunion at an airport gate"},
		[]string{"reality show finales", "emotional trailers"}},
	{"Pop", "Bubblegum Pop", 120, 132, 0.9, 0, false, []string{"Joyful", "Whimsical", "Festive"},
		[]string{"synthesizer", "drum machine", "hand claps"},
		[]string{"sugary hooks, hand claps and candy-coloured synths", "a bouncing chorus built for singing back", "bright keyboards and a skipping beat"},
		[]string{"a roller rink full of glitter", "balloons bumping a ceiling"},
		[]string{"toy ads", "teen shows"}},
	{"Jazz", "Bebop", 170, 220, 0.1, 0, false, []string{"Driving", "Whimsical", "Carefree"},
		[]string{"alto saxophone", "upright bass", "ride cymbal", "piano"},
		[]string{"a racing alto sax line over a walking upright bass", "quicksilver piano runs and a busy ride cymbal", "trumpet and sax trading breakneck phrases"},
		[]string{"a smoky basement club at 2 a.m.", "taxis weaving through Manhattan"},
		[]string{"period city scenes", "montages with wit"}},
	{"Jazz", "Lounge", 76, 96, 0.4, 0, false, []string{"Sultry", "Serene", "Carefree"},
		[]string{"vibraphone", "upright bass", "brushed snare"},
		[]string{"vibraphone and brushed snare under soft lights", "a purring tenor sax over a lazy bossa beat", "cocktail piano with a murmuring bass"},
		[]string{"martini glasses on a mirrored bar", "velvet booths and dim lamps"},
		[]string{"hotel bars", "retro fashion"}},
	{"Jazz", "Gypsy Jazz", 160, 200, 0.15, 0, false, []string{"Festive", "Whimsical", "Carefree"},
		[]string{"manouche guitar", "violin", "upright bass"},
		[]string{"a pumping rhythm guitar and a flying violin", "fiery manouche guitar runs over a brisk two-beat", "accordion and guitar racing through a minor-key tune"},
		[]string{"a caravan camp with lanterns", "a Paris side street at night"},
		[]string{"cafe scenes", "travel pieces about France"}},
	{"Classical", "Baroque", 90, 120, 0, 0.2, false, []string{"Majestic", "Joyful", "Reverent"},
		[]string{"harpsichord", "strings", "trumpet"},
		[]string{"a harpsichord continuo and bustling strings in counterpoint", "a trumpet concerto movement with a bright string band", "ornamented lines for a small court band"},
		[]string{"powdered wigs and candlelit ballrooms", "a palace garden with fountains"},
		[]string{"period dramas", "royal banquets"}},
	{"Classical", "Romantic Piano", 56, 80, 0, 0, true, []string{"Tender", "Wistful", "Somber"},
		[]string{"piano"},
		[]string{"a lone piano with rubato and long pedal", "one pianist, a nocturne-like melody over rolling chords", "unaccompanied piano, quiet and close"},
		[]string{"rain on a window at night", "a letter read for the last time"},
		[]string{"memorial films", "intimate portraits"}},
	{"Classical", "Opera", 60, 100, 1, 0.4, false, []string{"Majestic", "Somber", "Tender"},
		[]string{"orchestra", "strings"},
		[]string{"an aria soaring over a full pit orchestra", "a grand operatic voice above sweeping strings", "a bel canto line with a lush orchestra"},
		[]string{"red velvet seats and a gilded stage", "a tragic heroine under one spotlight"},
		[]string{"luxury spots", "high-drama moments"}},
	{"Cinematic", "Hybrid Trailer", 90, 130, 0, 0.4, false, []string{"Heroic", "Majestic", "Suspenseful"},
		[]string{"orchestra", "taiko", "synth bass", "brass"},
		[]string{"booming braams, taikos and a massive brass theme", "ticking synths that build to thundering orchestral hits", "huge percussion, rising strings and sub drops"},
		[]string{"a city skyline collapsing in slow motion", "an army cresting a hill"},
		[]string{"blockbuster trailers", "game launch teasers"}},
	{"Cinematic", "Horror Score", 40, 80, 0, 0.15, false, []string{"Eerie", "Suspenseful", "Brooding"},
		[]string{"strings", "prepared piano", "music box"},
		[]string{"scraping strings, detuned music box and sudden stabs", "low drones and a prepared piano plucked inside the lid", "creaking textures and breathy whispers"},
		[]string{"a hallway where the lights flicker", "a doll's head turning by itself"},
		[]string{"horror trailers", "haunted attraction ads"}},
	{"Cinematic", "Fantasy Adventure", 100, 140, 0, 0.3, false, []string{"Heroic", "Whimsical", "Majestic"},
		[]string{"orchestra", "french horn", "celesta", "flute"},
		[]string{"a full orchestra with soaring horns and twinkling celesta", "a flute melody over galloping strings", "a sweeping theme with bells and a wordless chorus"},
		[]string{"dragons over misty mountains", "a map unrolled by candlelight"},
		[]string{"family films", "fantasy games"}},
	{"Cinematic", "Emotional Underscore", 60, 90, 0, 0, false, []string{"Somber", "Tender", "Inspiring"},
		[]string{"piano", "strings", "cello"},
		[]string{"sparse piano notes over long cello tones", "a slowly swelling string pad with single piano notes", "soft felt piano and quiet violins"},
		[]string{"a hospital corridor at dawn", "an old couple holding hands"},
		[]string{"charity films", "documentary interviews"}},
	{"Corporate", "Motivational", 110, 128, 0, 0, false, []string{"Inspiring", "Joyful", "Driving"},
		[]string{"piano", "acoustic guitar", "hand claps", "drum kit"},
		[]string{"plucky guitar, claps and a steady kick building to a lift", "bright piano chords over a four-beat stomp", "ukulele, glockenspiel and a clean rising beat"},
		[]string{"a sunrise over glass office towers", "a team high-fiving over a whiteboard"},
		[]string{"company intros", "product explainers"}},
	{"Corporate", "Tech Minimal", 100, 120, 0, 0, false, []string{"Serene", "Inspiring", "Enigmatic"},
		[]string{"synthesizer", "plucks", "soft kick"},
		[]string{"clean plucked synths and a soft pulsing kick", "minimal glassy arpeggios over a light beat", "crisp clicks and airy pads"},
		[]string{"white rooms and brushed aluminium", "data flowing through fibre"},
		[]string{"app launches", "AI explainers"}},
	{"Folk", "Americana", 80, 110, 0.9, 0, false, []string{"Wistful", "Carefree", "Tender"},
		[]string{"acoustic guitar", "banjo", "pedal steel", "harmonica"},
		[]string{"dusty acoustic guitar, banjo and a weeping pedal steel", "a harmonica and fingerpicked guitar on a porch", "a shuffling brush beat under a twangy slide"},
		[]string{"grain silos at sunset", "a screen door on a hot afternoon"},
		[]string{"truck ads", "road movies"}},
	{"Folk", "Sea Shanty", 96, 124, 1, 0.6, false, []string{"Festive", "Heroic", "Joyful"},
		[]string{"accordion", "fiddle", "stomps"},
		[]string{"a rowdy crew singing over stomps and an accordion", "foot stomps, fiddle and a hearty call and answer", "a tavern song with clinking mugs and squeezebox"},
		[]string{"a tall ship heaving on grey swells", "oars pulling through spray"},
		[]string{"pirate games", "pub scenes"}},
	{"World", "Afrobeat", 100, 124, 0.7, 0.2, false, []string{"Festive", "Driving", "Joyful"},
		[]string{"talking drum", "horns", "electric guitar"},
		[]string{"interlocking guitars, talking drum and punchy horns", "a hypnotic groove with shekere and baritone sax", "rolling percussion and call-and-answer horns"},
		[]string{"a Lagos street at rush hour", "a crowded market under bright awnings"},
		[]string{"travel spots about West Africa", "street food features"}},
	{"World", "Bollywood", 100, 130, 0.9, 0.2, false, []string{"Festive", "Tender", "Joyful"},
		[]string{"tabla", "sitar", "strings", "dhol"},
		[]string{"tabla, dhol and a string section with a soaring melody", "a sitar hook over pounding dhol", "a lavish film-song arrangement with strings and hand drums"},
		[]string{"marigolds and a spinning crowd of dancers", "a rooftop under coloured powder"},
		[]string{"wedding sangeets", "travel pieces about India"}},
	{"World", "Middle Eastern", 70, 110, 0.35, 0, false, []string{"Enigmatic", "Sultry", "Majestic"},
		[]string{"oud", "ney flute", "darbuka"},
		[]string{"an oud melody over darbuka and frame drum", "a breathy ney flute above a droning string", "winding maqam lines with hand percussion"},
		[]string{"lanterns in a spice souk", "a caravan on dunes at dusk"},
		[]string{"desert scenes", "travel to Morocco"}},
	{"Latin", "Tango", 110, 130, 0.4, 0, false, []string{"Sultry", "Brooding", "Tender"},
		[]string{"bandoneon", "violin", "piano"},
		[]string{"a sighing bandoneon and sharp staccato violins", "a dramatic piano and bandoneon duel", "clipped strings and a push-pull tempo"},
		[]string{"a smoky Buenos Aires dance hall", "a red dress spinning on wooden boards"},
		[]string{"dance scenes", "perfume ads"}},
	{"Latin", "Reggaeton", 88, 100, 0.9, 0, false, []string{"Sultry", "Driving", "Festive"},
		[]string{"dembow drums", "synth bass"},
		[]string{"the dembow beat with a thick synth bass", "a swaying dembow riddim and slick keys", "a pulsing club beat from San Juan"},
		[]string{"a beach club after midnight", "a packed dance floor in the Caribbean"},
		[]string{"nightlife promos", "summer party reels"}},
	{"Ambient", "Nature Soundscape", 40, 70, 0, 0, false, []string{"Serene", "Enigmatic", "Reverent"},
		[]string{"field recordings", "pads"},
		[]string{"birdsong and wind under slow evolving pads", "distant thunder, rain and a glowing drone", "forest field recordings with soft tones"},
		[]string{"moss on ancient trees", "mist lifting off a valley"},
		[]string{"wellness apps", "nature films"}},
	{"Ambient", "Sleep", 40, 60, 0, 0, false, []string{"Serene", "Tender"},
		[]string{"pads", "soft piano"},
		[]string{"barely moving pads and far-off piano notes", "a warm hum that never changes key", "slow waves of soft noise and low tones"},
		[]string{"a dim bedroom with the curtains drawn", "the quiet after the house goes dark"},
		[]string{"night-time apps", "overnight streams"}},
	{"Kids", "Lullaby", 56, 72, 0.6, 0, false, []string{"Tender", "Serene", "Whimsical"},
		[]string{"music box", "celesta", "soft guitar"},
		[]string{"a tinkling music box and a hummed melody", "celesta and soft guitar, rocking gently", "a cradle-rocking waltz on toy piano"},
		[]string{"a night-light glowing beside a crib", "stars painted on a nursery ceiling"},
		[]string{"baby products", "picture-book animations"}},
	{"Kids", "Sing-Along", 110, 132, 1, 0.3, false, []string{"Joyful", "Whimsical", "Festive"},
		[]string{"ukulele", "xylophone", "hand claps"},
		[]string{"ukulele, xylophone and clap-along rhythms", "a simple chorus that little ones can shout back", "a bouncy toy-box arrangement with kazoo"},
		[]string{"a classroom carpet full of wiggling children", "a puppet show in the park"},
		[]string{"preschool shows", "learning apps"}},
	{"Holiday", "Halloween", 90, 120, 0.2, 0.1, false, []string{"Eerie", "Whimsical", "Brooding"},
		[]string{"theremin", "pipe organ", "harpsichord"},
		[]string{"a wobbling theremin and a creaky pipe organ", "a skeletal xylophone dance over a pizzicato bass", "spooky harpsichord and cackling effects"},
		[]string{"jack-o'-lanterns on a porch", "bats over a crooked house"},
		[]string{"costume shop ads", "trick-or-treat videos"}},
	{"Holiday", "Winter Holiday", 96, 128, 0.6, 0.3, false, []string{"Festive", "Joyful", "Tender"},
		[]string{"sleigh bells", "glockenspiel", "brass"},
		[]string{"sleigh bells, glockenspiel and a warm brass section", "a crackling fire, celesta and a cosy carol tune", "jingling percussion and a swinging big-band feel"},
		[]string{"snow falling on a lit-up town square", "presents under a tree"},
		[]string{"seasonal retail spots", "family gatherings in December"}},
	{"Ceremonial", "Marching Band", 110, 126, 0, 0, false, []string{"Heroic", "Festive", "Driving"},
		[]string{"brass", "snare drum", "glockenspiel"},
		[]string{"snare cadences, sousaphones and bright brass", "a parade-ground march with cymbals and piccolo", "crisp drumline rolls and a brass fanfare"},
		[]string{"flags and a stadium crowd on its feet", "a homecoming parade down Main Street"},
		[]string{"sports broadcasts", "national days"}},
	{"Sacred", "Gospel Choir", 70, 110, 1, 1, false, []string{"Reverent", "Joyful", "Inspiring"},
		[]string{"hammond organ", "piano", "choir"},
		[]string{"a Hammond organ, tambourine and a mass of voices answering the lead", "a swelling congregation lifting up a refrain", "hand claps and a soaring chorus of robes"},
		[]string{"a packed chapel on a Sunday", "raised hands in stained-glass light"},
		[]string{"uplifting documentaries", "community stories"}},
	{"Sacred", "Chant", 40, 70, 1, 1, false, []string{"Reverent", "Serene", "Enigmatic"},
		[]string{"choir"},
		[]string{"monks in unison under a stone vault", "plainsong voices with a long echo", "slow layered voices and a low drone"},
		[]string{"candles in a cloister", "incense drifting in an abbey"},
		[]string{"historical documentaries", "meditative scenes"}},
	{"R&B", "Neo Soul", 70, 92, 0.95, 0, false, []string{"Sultry", "Tender", "Carefree"},
		[]string{"rhodes", "bass guitar", "drum kit"},
		[]string{"a lazy Rhodes, a laid-back pocket and a purring bassline", "warm keys and a behind-the-beat groove", "jazzy chords and a soft swung beat"},
		[]string{"a candle-lit loft apartment", "a Sunday afternoon in bed"},
		[]string{"beauty spots", "late-night radio"}},
	{"Hip Hop", "Drill", 138, 146, 0.9, 0, false, []string{"Fierce", "Brooding", "Driving"},
		[]string{"808 slides", "drum machine"},
		[]string{"sliding 808s, skittering hats and a cold piano loop", "a menacing bell melody over a sliding bass", "choppy drums and a grim minor loop"},
		[]string{"hoodies under an estate streetlight", "a car idling in the rain"},
		[]string{"streetwear campaigns", "urban crime series"}},
	{"Blues", "Chicago Blues", 70, 110, 0.85, 0, false, []string{"Wistful", "Somber", "Sultry"},
		[]string{"electric guitar", "harmonica", "piano"},
		[]string{"a crying electric guitar and a wailing harp", "a heavy shuffle with barrelhouse piano", "slow twelve-bar lines bending every note"},
		[]string{"a neon beer sign in a South Side bar", "a rainy night by the train tracks"},
		[]string{"bar scenes", "whiskey ads"}},
	{"Comedy", "Quirky", 100, 130, 0, 0, false, []string{"Whimsical", "Joyful"},
		[]string{"pizzicato strings", "bassoon", "xylophone"},
		[]string{"tiptoeing pizzicato, bassoon burps and a xylophone", "a clumsy tuba waddle with slide whistle", "plucked strings sneaking around on tiptoe"},
		[]string{"a cat knocking cups off a table", "a bumbling detective tripping over a rug"},
		[]string{"sitcom bumpers", "pet videos"}},
}

// moodLines put each mood in an editor's words, never its name.
var moodLines = map[string][]string{
	"Joyful":      {"sunny, grinning energy", "pure good news from the first bar", "bright and bubbly all the way through"},
	"Serene":      {"still as a mountain lake", "unruffled and barely moving", "a quiet breath of air"},
	"Somber":      {"heavy-hearted and grave", "weighted with loss", "quietly grieving"},
	"Heroic":      {"a hero's stride, chest out", "courage against the odds", "valiant and bold"},
	"Suspenseful": {"every bar tightens the screw", "nerves stretched thin", "holding its breath for what comes next"},
	"Whimsical":   {"a wink and a skip", "curious toy-box charm", "mischievous and light on its feet"},
	"Sultry":      {"smoky, slow-burning heat", "a come-closer glance", "velvet and after dark"},
	"Reverent":    {"hushed, as if in a chapel", "prayerful and devout", "bowed heads and candle flames"},
	"Wistful":     {"a fond ache for yesterday", "looking back through a rainy window", "bittersweet, half a smile"},
	"Fierce":      {"teeth bared, no mercy", "hostile and snarling", "pure fury"},
	"Festive":     {"streamers, toasts and a cheering crowd", "a street party at full tilt", "confetti in the air"},
	"Eerie":       {"something is wrong in this house", "cold fingers on the back of the neck", "uncanny, creaking silence"},
	"Tender":      {"gentle as a hand on a shoulder", "soft-hearted and close", "affectionate and warm"},
	"Driving":     {"relentless forward push", "engine-room momentum", "pushes hard from start to finish"},
	"Inspiring":   {"rising toward a hopeful peak", "the sense that anything is possible", "lifts the whole room"},
	"Brooding":    {"dark clouds gathering", "a low simmer of menace", "shadowed and heavy"},
	"Carefree":    {"not a worry in sight", "windows down, hair loose", "easy, breezy and unbothered"},
	"Majestic":    {"vast and regal", "sweeping, like a camera over mountains", "grandeur on a huge canvas"},
	"Enigmatic":   {"a riddle left unsolved", "veiled and curious", "smoke and half-seen shapes"},
}

// voiceLines say who sings, as a cue sheet does, without the vocals value.
var voiceLines = map[string][]string{
	catalog.VocalsFemale:       {"Lead: a woman, up front in the mix", "Sung by a young woman", "Voice: alto, a woman's"},
	catalog.VocalsMale:         {"Lead: a man, up front in the mix", "Sung by a man with a low, warm tone", "Voice: tenor, a man's"},
	catalog.VocalsMixed:        {"Lead: a man and a woman trading lines", "Sung by a couple in harmony", "Voices: his and hers together"},
	catalog.VocalsInstrumental: {"No voice", "No singing; all played", "Voice: none"},
}

var choirLines = []string{"A choir of thirty across the top", "Massed voices join in the last third", "Choir stem included"}

// paceLines say the pace by tempo band, never the band's name.
var paceLines = map[string][]string{
	catalog.TempoSlow:   {"Pace: unhurried, about a resting heartbeat", "Pace: stately and patient"},
	catalog.TempoMedium: {"Pace: a mid stride", "Pace: a comfortable walk"},
	catalog.TempoFast:   {"Pace: quick and urgent", "Pace: brisk, a sprint"},
}

var editLines = []string{"Builds from a sparse intro to a clean ending", "Loopable", "Natural ending",
	"30 and 60 second cutdowns available", "Cold open, hard out"}

var titleA = []string{"Amber", "Cobalt", "Saffron", "Iron", "Linen", "Marble", "Copper", "Ivory", "Indigo", "Paper",
	"Ash", "Tin", "Jade", "Rust", "Pearl", "Slate", "Wax", "Coral", "Quartz", "Moss"}
var titleN = []string{"Parade", "Engine", "Lantern", "Ladder", "Sparrow", "Anchor", "Carousel", "Telegram", "Bicycle", "Cathedral",
	"Harvest", "Comet", "Ferry", "Quarry", "Tapestry", "Orbit", "Pilgrim", "Rooftop", "Marigold", "Kettle"}
var artistF = []string{"Ines", "Bram", "Odile", "Kofi", "Mirela", "Anders", "Yuki", "Dario", "Femi", "Greta"}
var artistL = []string{"Achterberg", "Mensah", "Castellanos", "Novak", "Ishikawa", "Dubois", "Oyelaran", "Sorensen", "Bianchi", "Kowal"}

// Generate builds n cues from seed.
func Generate(n int, seed uint64) Catalog {
	r := rand.New(rand.NewPCG(seed, 0x3c3))
	c := Catalog{Truth: map[string]Truth{}}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	for i := range n {
		f := families[i%len(families)]
		fc := DrawFacets(r, Odds{Moods: f.moods, BPMLo: f.bpmLo, BPMHi: f.bpmHi, Sung: f.sung, Choir: f.choir})
		mood, second, bpm, vocals, choir := fc.Mood, fc.Second, fc.BPM, fc.Vocals, fc.Choir
		// The cue sheet: palette and feel first, then what it evokes,
		// its mood in other words, who sings, pace, placement, edit.
		lines := []string{"Palette: " + strings.Join(f.palette, ", "), pick(f.feel)}
		if r.IntN(3) > 0 {
			lines = append(lines, "Evokes "+pick(f.imagery))
		}
		lines = append(lines, pick(moodLines[mood]))
		if second != "" && r.IntN(2) == 0 {
			lines = append(lines, pick(moodLines[second]))
		}
		if vocals != catalog.VocalsInstrumental || r.IntN(3) == 0 {
			lines = append(lines, pick(voiceLines[vocals]))
		}
		if choir {
			lines = append(lines, pick(choirLines))
		}
		if r.IntN(2) == 0 {
			lines = append(lines, pick(paceLines[catalog.TempoDescriptor(bpm)]))
		}
		if r.IntN(3) == 0 {
			lines = append(lines, "Sits well under "+pick(f.fits))
		}
		if r.IntN(4) == 0 {
			lines = append(lines, pick(editLines))
		}
		for k, s := range lines {
			lines[k] = strings.ToUpper(s[:1]) + s[1:]
		}
		tags := []string{f.palette[r.IntN(len(f.palette))]}
		if t := pick(f.imagery); r.IntN(2) == 0 {
			tags = append(tags, lastWords(t, 2))
		}
		title := pick(titleA) + " " + pick(titleN)
		name := fmt.Sprintf("%s %03d", title, i+1)
		artist := pick(artistF) + " " + pick(artistL)
		var stems []manifest.Stem
		if r.IntN(5) < 2 && !f.solo {
			for k, p := range f.palette {
				stems = append(stems, manifest.Stem{Name: p, Audio: fmt.Sprintf("audio/t3-%03d-stem%d.wav", i+1, k)})
			}
		}
		c.Tracks = append(c.Tracks, manifest.Track{
			Name: name, Genre: f.genre, Subgenre: f.sub, Mood: mood, SecondaryMood: second,
			Tempo: &bpm, Vocals: vocals, Description: strings.Join(lines, ". ") + ".", Tags: tags,
			Artist:     catalog.Artist{Name: artist, Slug: manifest.Slug(artist)},
			AccessTier: string(catalog.TierFree), Audio: fmt.Sprintf("audio/t3-%03d.wav", i+1), Stems: stems,
		})
		c.Truth[name] = Truth{Choir: choir, Solo: f.solo, Palette: f.palette}
	}
	return c
}

// lastWords is the last n words of s (a short tag from an image).
func lastWords(s string, n int) string {
	ws := strings.Fields(s)
	return strings.Join(ws[max(0, len(ws)-n):], " ")
}

// FacetNames are the taxonomy's genres, subgenres and moods and the
// vocals values: the words the cue text never uses.
func FacetNames() []string {
	var names []string
	for _, f := range families {
		names = append(names, f.genre, f.sub)
		names = append(names, f.moods...)
	}
	for m := range moodLines {
		names = append(names, m)
	}
	return SortedFacetNames(names...)
}
