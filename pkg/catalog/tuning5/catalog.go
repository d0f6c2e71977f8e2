package tuning5

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/manifest"
	"musiccatalog/pkg/catalog/tuning3"
)

// Size is the default track count.
const Size = 320

// family is one subgenre: how it is played and how its composers write
// about it.
type family struct {
	genre, sub   string
	bpmLo, bpmHi int
	sung, choir  float64  // chance of a lead voice, of a choir
	solo         bool     // one instrument alone
	moods        []string // the first two most likely
	gear         []string // instrument keys (tuning3.Truth.Palette)
	made         []string // how it was made, in the composer's words
	picture      []string // what to picture
	greatFor     []string // what it is great for
}

// families is the taxonomy: 42 subgenres of 21 genres.
var families = []family{
	{"Electronic", "Deep House", 120, 125, 0.3, 0, false, []string{"Laid-back", "Seductive", "Energetic"},
		[]string{"909 kick", "organ stabs", "sub bass"},
		[]string{"a rolling kick on every beat with warm chord stabs I sampled off an old organ", "shuffled hats and a rubbery bassline for the small hours", "smooth keys looping over a kick that never lets up"},
		[]string{"a warehouse loft at 4 a.m. with the lights down low", "a sunset terrace where everyone is swaying"},
		[]string{"fashion week reels", "rooftop bar playlists"}},
	{"Electronic", "Drum and Bass", 170, 178, 0.2, 0, false, []string{"Energetic", "Tense", "Euphoric"},
		[]string{"breakbeats", "reese bass"},
		[]string{"chopped breaks at full speed over a rolling reese", "jungle breakbeats and a bass that snarls", "liquid pads floating over frantic two-step drums"},
		[]string{"a motorbike weaving through tunnels", "city lights streaking past a windscreen"},
		[]string{"racing game trailers", "parkour clips"}},
	{"Electronic", "Synthpop", 110, 124, 0.8, 0, false, []string{"Nostalgic", "Euphoric", "Playful"},
		[]string{"analog synth", "drum machine", "vocoder"},
		[]string{"shiny analog synths and a gated snare, very 1984", "a bouncy synth riff and a chorus you will hum all day", "bright arpeggios and a handclap beat"},
		[]string{"a mall food court in neon", "cassette tapes and roller skates"},
		[]string{"retro ads", "throwback edits"}},
	{"Electronic", "Trance", 134, 140, 0.3, 0, false, []string{"Euphoric", "Hopeful", "Epic"},
		[]string{"supersaw lead", "gated pads", "kick drum"},
		[]string{"a long breakdown, then the soaring lead kicks back in", "a rolling offbeat bass and huge shimmering pads", "a hands-up build with a rising snare roll"},
		[]string{"ten thousand hands up at sunrise", "lasers cutting through smoke"},
		[]string{"festival aftermovies", "drone footage over coastlines"}},
	{"Electronic", "Lo-Fi Beats", 70, 88, 0.05, 0, false, []string{"Laid-back", "Melancholy", "Peaceful"},
		[]string{"dusty sampler", "muted keys", "vinyl crackle"},
		[]string{"dusty drums, vinyl crackle and a muted electric piano", "a sleepy head-nod loop I made on a rainy afternoon", "tape-wobbled chords and a soft boom-tap groove"},
		[]string{"a desk lamp over a pile of notebooks", "rain streaking a bedroom window"},
		[]string{"study streams", "cosy vlogs"}},
	{"Electronic", "Industrial", 120, 140, 0.4, 0, false, []string{"Menacing", "Tense", "Energetic"},
		[]string{"distorted drum machine", "scrap percussion"},
		[]string{"clanging scrap percussion and a grinding distorted beat", "harsh synth bass and machine-gun snares", "noisy loops hammered into a march"},
		[]string{"a factory floor showering sparks", "a dystopian control room"},
		[]string{"cyberpunk game trailers", "villain reveals"}},
	{"Rock", "Grunge", 90, 120, 0.85, 0, false, []string{"Gloomy", "Menacing", "Melancholy"},
		[]string{"fuzzed guitar", "drum kit", "bass guitar"},
		[]string{"sludgy fuzz guitars, a quiet verse and a loud chorus", "a murky riff and a drummer hitting way too hard", "heavy detuned chords and a tired sneer"},
		[]string{"a flannel shirt in a rainy parking lot", "a leaky practice space under a highway"},
		[]string{"skate edits", "teen dramas"}},
	{"Rock", "Garage Rock", 130, 160, 0.8, 0, false, []string{"Energetic", "Playful", "Celebratory"},
		[]string{"crunchy guitar", "drum kit", "tambourine"},
		[]string{"three crunchy chords, a tambourine and a whole lot of attitude", "raw, cut live in one take with the amp cranked", "a fast stomp with hand claps and yelps"},
		[]string{"a sweaty house party", "a road trip in a beat-up van"},
		[]string{"sneaker spots", "sports highlights"}},
	{"Rock", "Stadium Rock", 110, 140, 0.9, 0, false, []string{"Triumphant", "Energetic", "Epic"},
		[]string{"power chords", "drum kit", "crowd claps"},
		[]string{"massive power chords and a chant-along chorus", "a stomp-stomp-clap beat made for arenas", "big guitars hanging on every downbeat"},
		[]string{"a packed arena with lighters up", "a team running out of the tunnel"},
		[]string{"sports promos", "victory montages"}},
	{"Metal", "Thrash", 170, 200, 0.8, 0, false, []string{"Menacing", "Energetic", "Tense"},
		[]string{"down-tuned guitar", "double kick drums"},
		[]string{"palm-muted riffs at breakneck speed with double kicks", "shredded solos over pummelling drums", "a crushing riff and a roar"},
		[]string{"a mosh pit spinning", "lightning over a burning field"},
		[]string{"extreme sports", "fighting game trailers"}},
	{"Pop", "K-Pop", 118, 130, 1, 0, false, []string{"Energetic", "Playful", "Euphoric"},
		[]string{"synth brass", "trap hats", "group chant"},
		[]string{"a glossy dance beat that switches up every eight bars", "sugary hooks, a rap break and a killer drop", "crisp choreography-ready hits and a shout-back chant"},
		[]string{"a dance crew in matching outfits", "a stage flooded with light sticks"},
		[]string{"dance challenge videos", "beauty brand spots"}},
	{"Pop", "Singer-Songwriter", 70, 100, 1, 0, false, []string{"Loving", "Melancholy", "Nostalgic"},
		[]string{"acoustic guitar", "piano", "light percussion"},
		[]string{"just a guitar, a voice and a story", "fingerpicked guitar and a close, breathy lead", "a soft piano ballad recorded late at night"},
		[]string{"a kitchen table covered in old photos", "headlights on a long drive home"},
		[]string{"wedding films", "heartfelt ads"}},
	{"Pop", "Disco", 115, 125, 0.8, 0, false, []string{"Celebratory", "Euphoric", "Seductive"},
		[]string{"string section", "octave bass", "open hi-hat"},
		[]string{"a kick on every beat with swirling strings and an octave bassline", "open hi-hats, scratchy guitar and a glitterball groove", "lush strings and a bass that walks up and down"},
		[]string{"a mirror ball over a lit-up floor", "platform shoes and sequins"},
		[]string{"party invitations", "fashion ads"}},
	{"Funk", "Funk", 95, 115, 0.5, 0, false, []string{"Playful", "Celebratory", "Energetic"},
		[]string{"clavinet", "slap bass", "horn section"},
		[]string{"a tight clavinet riff and a popping slap bass", "horn stabs and a drummer deep in the pocket", "scratchy guitar and a groove that will not quit"},
		[]string{"a block party with the hydrant open", "a seventies cop show car chase"},
		[]string{"food truck promos", "comedy openers"}},
	{"Soul", "Motown Soul", 100, 125, 0.95, 0, false, []string{"Loving", "Celebratory", "Nostalgic"},
		[]string{"tambourine", "horn section", "vibraphone"},
		[]string{"a tambourine backbeat and a bright horn line", "sweet harmonies over a bouncing bass", "a sixties hit-factory sound with vibes and strings"},
		[]string{"a jukebox diner in 1965", "a couple slow-spinning at a sock hop"},
		[]string{"anniversary videos", "retro commercials"}},
	{"Jazz", "Big Band Swing", 140, 190, 0.3, 0, false, []string{"Celebratory", "Playful", "Energetic"},
		[]string{"trumpet section", "trombones", "drum kit", "upright bass"},
		[]string{"a brassy shout chorus and a ride cymbal that never stops", "saxes and trombones trading riffs over a walking bass", "a hard-driving band with a drum break"},
		[]string{"a 1940s ballroom full of jitterbugs", "a dance hall with a bandstand and paper lanterns"},
		[]string{"vintage fashion", "period comedy"}},
	{"Jazz", "Smooth Jazz", 80, 100, 0.2, 0, false, []string{"Laid-back", "Seductive", "Peaceful"},
		[]string{"soprano sax", "fretless bass", "electric piano"},
		[]string{"a silky soprano sax over soft electric piano", "glassy keys and a fretless bass gliding along", "a gentle groove with nothing sharp in it"},
		[]string{"a hotel pool at twilight", "candles in a high-rise apartment"},
		[]string{"waiting room loops", "luxury real estate tours"}},
	{"Jazz", "Film Noir", 60, 90, 0.1, 0, false, []string{"Mysterious", "Seductive", "Tense"},
		[]string{"muted trumpet", "brushed drums", "upright bass"},
		[]string{"a muted trumpet curling through cigarette smoke", "a walking bass and brushes under a shadowy melody", "slow minor chords and a lonely horn"},
		[]string{"a detective's office with rain on the blinds", "a trench coat under a streetlamp"},
		[]string{"mystery audio dramas", "crime documentaries"}},
	{"Classical", "String Quartet", 60, 110, 0, 0, false, []string{"Loving", "Peaceful", "Melancholy"},
		[]string{"violins", "viola", "cello"},
		[]string{"two violins, viola and cello in a quiet conversation", "bowed chamber writing, intimate and warm", "a cello line rising under gentle pizzicato"},
		[]string{"a garden wedding under an arbor", "an old library with dust in the sunlight"},
		[]string{"ceremony walks", "luxury brand films"}},
	{"Classical", "Requiem", 40, 70, 1, 0.8, false, []string{"Gloomy", "Devotional", "Epic"},
		[]string{"chorus", "orchestra", "timpani"},
		[]string{"a mass of voices mourning over low strings", "a slow mass text sung by a full chorus", "thundering timpani under grieving voices"},
		[]string{"a state funeral in the rain", "a cathedral draped in black"},
		[]string{"war documentaries", "tragic trailers"}},
	{"Classical", "Waltz", 150, 180, 0, 0, false, []string{"Playful", "Loving", "Celebratory"},
		[]string{"orchestra", "flute", "harp"},
		[]string{"an oom-pah-pah lilt with sweeping violins", "a twirling three-beat dance with flute and harp", "a merry-go-round of strings in three"},
		[]string{"gowns spinning under chandeliers", "a skating rink in the snow"},
		[]string{"ballroom scenes", "jewellery ads"}},
	{"Cinematic", "Epic Orchestral", 80, 130, 0, 0.4, false, []string{"Epic", "Triumphant", "Tense"},
		[]string{"brass", "taiko", "strings"},
		[]string{"giant brass chords, pounding drums and a chanting chorus", "strings in ostinato building to a roaring climax", "a heroic horn theme over war drums"},
		[]string{"armies clashing on a plain", "a spaceship rising through the clouds"},
		[]string{"movie trailers", "game cutscenes"}},
	{"Cinematic", "Spy Thriller", 110, 135, 0, 0, false, []string{"Tense", "Mysterious", "Energetic"},
		[]string{"baritone guitar", "bongos", "brass stabs", "synth pulse"},
		[]string{"a twangy baritone guitar riff and sneaky brass hits", "a pulsing synth and ticking percussion under stealthy strings", "bongos and a low guitar creeping around"},
		[]string{"a laser grid in a vault", "a tuxedo at a casino table"},
		[]string{"heist scenes", "secret agent promos"}},
	{"Cinematic", "Western", 70, 110, 0.1, 0, false, []string{"Epic", "Tense", "Nostalgic"},
		[]string{"twang guitar", "harmonica", "whistling", "trumpet"},
		[]string{"a lonesome whistle and a reverb-drenched guitar", "a desolate trumpet over a galloping beat", "harmonica and a clip-clop rhythm under a big sky"},
		[]string{"tumbleweeds across a dusty main street", "two gunslingers facing off at noon"},
		[]string{"showdown scenes", "desert road trips"}},
	{"Cinematic", "Documentary Underscore", 70, 100, 0, 0, false, []string{"Hopeful", "Peaceful", "Melancholy"},
		[]string{"felt piano", "strings", "marimba"},
		[]string{"gentle piano and pulsing strings that stay out of the way", "warm marimba patterns and soft pads", "a simple piano motif that slowly grows"},
		[]string{"a scientist bent over a microscope", "a village at first light"},
		[]string{"nonprofit films", "explainer videos"}},
	{"Country", "Bluegrass", 120, 160, 0.6, 0, false, []string{"Celebratory", "Playful", "Energetic"},
		[]string{"banjo", "fiddle", "mandolin", "upright bass"},
		[]string{"a racing banjo roll and a hoedown fiddle", "mandolin chops and flat-picked guitar at full gallop", "a barn-dance tune with boot stomps"},
		[]string{"hay bales at a county fair", "a barn strung with lights"},
		[]string{"farm-to-table spots", "rodeo promos"}},
	{"Country", "Country Ballad", 60, 85, 1, 0, false, []string{"Melancholy", "Loving", "Nostalgic"},
		[]string{"pedal steel", "acoustic guitar", "fiddle"},
		[]string{"a crying pedal steel and a heartfelt story", "slow strummed guitar and a tear-in-my-beer chorus", "a gentle three-beat song about home"},
		[]string{"a pickup truck by a dirt road", "a small-town chapel at dusk"},
		[]string{"veterans tributes", "truck ads"}},
	{"World", "Celtic", 90, 130, 0.4, 0, false, []string{"Celebratory", "Nostalgic", "Peaceful"},
		[]string{"tin whistle", "bodhran", "fiddle", "uilleann pipes"},
		[]string{"a tin whistle jig over a bodhran", "a lilting reel with fiddle and pipes", "a misty slow air on the uilleann pipes"},
		[]string{"green cliffs above the Atlantic", "a stone cottage with peat smoke"},
		[]string{"tourism films", "fantasy taverns"}},
	{"World", "Flamenco", 100, 140, 0.5, 0, false, []string{"Seductive", "Tense", "Energetic"},
		[]string{"nylon guitar", "palmas", "cajon"},
		[]string{"rapid rasgueado strums and palmas hand claps", "a fiery nylon-string guitar and stamping heels", "a cajon and guitar building to a frenzy"},
		[]string{"a whitewashed courtyard at night", "a red fan and a swirl of ruffles"},
		[]string{"food and wine travel", "passionate dance scenes"}},
	{"Latin", "Bossa Nova", 80, 100, 0.5, 0, false, []string{"Laid-back", "Seductive", "Peaceful"},
		[]string{"nylon guitar", "brushes", "flute"},
		[]string{"a gentle syncopated nylon guitar and whispered brushes", "a soft flute over a swaying syncopation", "hushed chords and a bass walking on tiptoe"},
		[]string{"a beach kiosk at sunset", "a seaside café with linen tablecloths"},
		[]string{"cocktail hours", "resort promos"}},
	{"Latin", "Mariachi", 100, 140, 0.7, 0, false, []string{"Celebratory", "Loving", "Triumphant"},
		[]string{"trumpets", "violins", "guitarron"},
		[]string{"bright trumpets and violins over a strumming guitarron", "a proud serenade with a grito or two", "a brass-and-strings fanfare"},
		[]string{"papel picado fluttering over a plaza", "a birthday serenade under a window"},
		[]string{"restaurant promos", "fiesta scenes"}},
	{"Reggae", "Roots Reggae", 70, 90, 0.8, 0, false, []string{"Laid-back", "Hopeful", "Celebratory"},
		[]string{"skank guitar", "bass guitar", "organ bubble"},
		[]string{"offbeat guitar skanks and a deep rolling bass", "one-drop drums and a bubbling organ", "dubby echoes and a sunny sway"},
		[]string{"a hammock between two palms", "a beach bonfire"},
		[]string{"island travel", "summer barbecues"}},
	{"Sacred", "Hymns", 60, 90, 1, 0.9, false, []string{"Devotional", "Hopeful", "Peaceful"},
		[]string{"pipe organ", "chorus", "piano"},
		[]string{"a pipe organ and a congregation singing in four parts", "a simple tune of praise carried by many voices", "a stately organ prelude and a rising chorus"},
		[]string{"wooden pews in a village chapel", "candles on the altar on a winter evening"},
		[]string{"memorial services", "faith films"}},
	{"Vocal", "A Cappella", 90, 120, 1, 0.5, false, []string{"Playful", "Loving", "Nostalgic"},
		[]string{"close harmony", "finger snaps"},
		[]string{"four voices in tight close harmony with snaps", "no instruments at all, just voices stacking chords", "a bass voice doing the bassline while the others ring over it"},
		[]string{"striped jackets and straw boaters", "a campus quad at homecoming"},
		[]string{"ice cream ads", "valentine greetings"}},
	{"Kids", "Nursery Rhymes", 90, 120, 0.9, 0, false, []string{"Playful", "Loving"},
		[]string{"toy piano", "glockenspiel", "ukulele"},
		[]string{"a toy piano and glockenspiel with a counting song", "simple rhymes bounced over ukulele", "clap-clap-stomp rhythms for tiny hands"},
		[]string{"building blocks on a playroom rug", "a duckling waddling to a pond"},
		[]string{"toddler apps", "nursery classes"}},
	{"Kids", "Cartoon Chase", 140, 170, 0, 0, false, []string{"Playful", "Energetic", "Tense"},
		[]string{"slide whistle", "xylophone", "tuba", "pizzicato strings"},
		[]string{"zany xylophone runs and a honking tuba", "madcap orchestral hits and slide whistles", "a breakneck chase on pizzicato strings"},
		[]string{"a cat chasing a mouse through a kitchen", "an anvil falling on a coyote"},
		[]string{"animated shorts", "funny pet compilations"}},
	{"Holiday", "Christmas Carols", 80, 120, 0.6, 0.5, false, []string{"Celebratory", "Loving", "Peaceful"},
		[]string{"sleigh bells", "chimes", "celesta"},
		[]string{"sleigh bells and a cosy chorus singing in the snow", "church bells and a warm old tune", "a music box and young voices"},
		[]string{"a fireplace with stockings hung", "carolers at a front door"},
		[]string{"winter retail", "greeting cards"}},
	{"Ambient", "Meditation", 50, 70, 0, 0, false, []string{"Peaceful", "Devotional", "Mysterious"},
		[]string{"singing bowls", "drone", "soft chimes"},
		[]string{"singing bowls ringing over a slow drone", "long breaths of sound with wind chimes", "a shimmering tone that barely moves"},
		[]string{"a yoga mat at dawn", "incense in a quiet room"},
		[]string{"mindfulness apps", "spa waiting rooms"}},
	{"Ambient", "Dark Ambient", 40, 70, 0, 0, false, []string{"Menacing", "Spooky", "Mysterious"},
		[]string{"drone", "metallic scrapes", "low rumble"},
		[]string{"subterranean rumbles and distant metallic scrapes", "a cold drone with breathy whispers", "slow grinding textures"},
		[]string{"an abandoned mine shaft", "a derelict space station"},
		[]string{"survival horror games", "true crime audio"}},
	{"Hip Hop", "Boom Bap", 85, 95, 0.9, 0, false, []string{"Nostalgic", "Laid-back", "Menacing"},
		[]string{"sampler", "turntable scratches", "dusty breaks"},
		[]string{"a knocking snare over a chopped old record sample", "turntable scratches and a head-nodding break", "crate-dug horns and heavy kicks"},
		[]string{"a subway platform covered in tags", "a cypher on a street corner"},
		[]string{"streetwear lookbooks", "skate edits"}},
	{"Corporate", "Upbeat Corporate", 110, 128, 0, 0, false, []string{"Hopeful", "Energetic", "Playful"},
		[]string{"ukulele", "claps", "glockenspiel", "piano"},
		[]string{"a cheery ukulele strum with claps and whistles", "bouncy piano chords and a clean kick", "glockenspiel sparkles over a bright strum"},
		[]string{"smiling coworkers around a laptop", "a startup office with plants everywhere"},
		[]string{"product demos", "onboarding videos"}},
	{"Corporate", "Inspirational Piano", 70, 95, 0, 0, true, []string{"Hopeful", "Melancholy", "Loving"},
		[]string{"piano"},
		[]string{"one piano, rising arpeggios and a simple melody", "a solo piano theme that opens up in the second half", "unaccompanied piano, warm and slowly building"},
		[]string{"a runner at the top of the stairs", "a grandmother's hands on a child's shoulders"},
		[]string{"fundraising videos", "life insurance ads"}},
}

// moodLines put each mood in a composer's words, never its name.
var moodLines = map[string][]string{
	"Euphoric":    {"pure rush, hands in the air", "that peak-of-the-night high", "goosebumps when it drops"},
	"Peaceful":    {"calm as a lake at dawn", "lets your shoulders drop", "soft and unbothered"},
	"Melancholy":  {"a little heartbreak in every chord", "blue and wistful", "the sad one on the record"},
	"Triumphant":  {"that we-did-it, trophy-lifting feeling", "a victory lap", "the moment you win"},
	"Tense":       {"edge-of-your-seat stuff", "wound tight, something is about to happen", "nervy and jittery"},
	"Playful":     {"cheeky and bouncy", "full of silly little winks", "makes people grin"},
	"Seductive":   {"slow-burning and flirty", "bedroom eyes", "sensual and low-lit"},
	"Devotional":  {"prayerful, made with faith", "like a song of thanks to heaven", "bowed-head stillness"},
	"Nostalgic":   {"feels like old home videos", "the good old days", "memories in faded colour"},
	"Menacing":    {"the villain just walked in", "threatening and dark", "a growl in the dark"},
	"Celebratory": {"party's on, raise a glass", "made for a big night out", "cheers and streamers"},
	"Spooky":      {"ghost-in-the-attic creepy", "shivers down the spine", "haunted and strange"},
	"Loving":      {"written for someone I adore", "warm as a hug", "full of affection"},
	"Energetic":   {"high octane from the first second", "pumps you up", "no sitting still"},
	"Hopeful":     {"looking toward brighter days", "optimistic, a new chapter", "a light at the end of the tunnel"},
	"Gloomy":      {"grey skies and heavy feet", "dour and downcast", "bleak as November"},
	"Laid-back":   {"easygoing, feet up", "no rush at all", "chilled and mellow"},
	"Epic":        {"huge, larger than life", "massive in scale", "goes big, end-of-days big"},
	"Mysterious":  {"full of secrets", "something hidden around the corner", "cryptic and shadowy"},
}

// voiceLines say who sings, as a composer would, without the vocals value.
var voiceLines = map[string][]string{
	catalog.VocalsFemale:       {"My friend Lena sings it, a soft soprano", "She sings this one low and smoky", "Sung by a woman with a raspy edge"},
	catalog.VocalsMale:         {"Sung by my brother, a warm baritone", "He sings it in a high falsetto", "Lead sung by a gravel-voiced guy"},
	catalog.VocalsMixed:        {"She and he trade verses, then sing together", "A husband-and-wife duet", "Two singers, a woman and a man"},
	catalog.VocalsInstrumental: {"Nobody sings on this one", "Purely played, no words", "No lyrics"},
}

var chorusLines = []string{"A thirty-voice chorus comes in at the end", "Backed by a big gospel-style chorus", "A full chorus of voices on top"}

// paceLines say the pace by tempo band, never the band's name.
var paceLines = map[string][]string{
	catalog.TempoSlow:   {"Takes its time, around a resting pulse", "Unhurried the whole way"},
	catalog.TempoMedium: {"Walking speed", "A steady head-nodding speed"},
	catalog.TempoFast:   {"Breathless and quick", "Runs at a sprint"},
}

var extraLines = []string{"Stems on request", "Seamless loop version included", "Clean and radio edits", "Ends on a sting"}

var titleA = []string{"Velvet", "Neon", "Paper", "Golden", "Hollow", "Midnight", "Electric", "Silver", "Wild", "Quiet",
	"Broken", "Crimson", "Lucky", "Frozen", "Distant", "Tiny", "Honey", "Static", "Lonely", "Bright"}
var titleN = []string{"Avenue", "Postcard", "Engine", "Harbor", "Mirror", "Compass", "Garden", "Signal", "Window", "Lighthouse",
	"Staircase", "Balloon", "Satellite", "Railway", "Umbrella", "Suitcase", "Orchard", "Skyline", "Canyon", "Teacup"}
var artistF = []string{"Noor", "Tobias", "Ama", "Lucien", "Sofia", "Jonah", "Priya", "Mateo", "Elif", "Ruairi"}
var artistL = []string{"Vance", "Okafor", "Lindqvist", "Moreau", "Tanaka", "Haddad", "Brennan", "Quispe", "Kaur", "Petrov"}

// Generate builds n tracks from seed.
func Generate(n int, seed uint64) tuning3.Catalog {
	r := rand.New(rand.NewPCG(seed, 0x5e5))
	c := tuning3.Catalog{Truth: map[string]tuning3.Truth{}}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	for i := range n {
		f := families[i%len(families)]
		fc := tuning3.DrawFacets(r, tuning3.Odds{Moods: f.moods, BPMLo: f.bpmLo, BPMHi: f.bpmHi, Sung: f.sung, Choir: f.choir})
		mood, second, bpm, vocals, choir := fc.Mood, fc.Second, fc.BPM, fc.Vocals, fc.Choir
		// The upload notes: how it was made first, then what to
		// picture, how it feels, who sings, pace, what it is great for,
		// the gear and a delivery note.
		lines := []string{pick([]string{"Made this with ", "Built around ", "It's ", ""}) + pick(f.made)}
		if r.IntN(3) > 0 {
			lines = append(lines, "Picture "+pick(f.picture))
		}
		lines = append(lines, pick(moodLines[mood]))
		if second != "" && r.IntN(2) == 0 {
			lines = append(lines, pick(moodLines[second]))
		}
		if vocals != catalog.VocalsInstrumental || r.IntN(3) == 0 {
			lines = append(lines, pick(voiceLines[vocals]))
		}
		if choir {
			lines = append(lines, pick(chorusLines))
		}
		if r.IntN(2) == 0 {
			lines = append(lines, pick(paceLines[catalog.TempoDescriptor(bpm)]))
		}
		if r.IntN(3) > 0 {
			lines = append(lines, "Great for "+pick(f.greatFor))
		}
		if r.IntN(2) == 0 {
			lines = append(lines, "Gear: "+strings.Join(f.gear, ", "))
		}
		if r.IntN(4) == 0 {
			lines = append(lines, pick(extraLines))
		}
		for k, s := range lines {
			lines[k] = strings.ToUpper(s[:1]) + s[1:]
		}
		tags := []string{f.gear[r.IntN(len(f.gear))]}
		if g := pick(f.greatFor); r.IntN(2) == 0 {
			tags = append(tags, g)
		}
		title := pick(titleA) + " " + pick(titleN)
		name := fmt.Sprintf("%s %03d", title, i+1)
		artist := pick(artistF) + " " + pick(artistL)
		var stems []manifest.Stem
		if r.IntN(5) < 2 && !f.solo {
			for k, p := range f.gear {
				stems = append(stems, manifest.Stem{Name: p, Audio: fmt.Sprintf("audio/t5-%03d-stem%d.wav", i+1, k)})
			}
		}
		c.Tracks = append(c.Tracks, manifest.Track{
			Name: name, Genre: f.genre, Subgenre: f.sub, Mood: mood, SecondaryMood: second,
			Tempo: &bpm, Vocals: vocals, Description: strings.Join(lines, ". ") + ".", Tags: tags,
			Artist:     catalog.Artist{Name: artist, Slug: manifest.Slug(artist)},
			AccessTier: string(catalog.TierFree), Audio: fmt.Sprintf("audio/t5-%03d.wav", i+1), Stems: stems,
		})
		c.Truth[name] = tuning3.Truth{Choir: choir, Solo: f.solo, Palette: f.gear}
	}
	return c
}

// FacetNames are the taxonomy's genres, subgenres and moods and the
// vocals values: the words the upload text never uses.
func FacetNames() []string {
	var names []string
	for _, f := range families {
		names = append(names, f.genre, f.sub)
		names = append(names, f.moods...)
	}
	for m := range moodLines {
		names = append(names, m)
	}
	return tuning3.SortedFacetNames(names...)
}
