package tuning2

import (
	"slices"

	"musiccatalog/pkg/catalog"
)

// Query is a situation or intent as an end user types it, with the rules
// that grade a track for it: the main ask weighs 2, each qualifier 1, and
// a track's grade is the sum of what it has, capped at 3.
type Query struct {
	Text    string
	aspects []aspect
}

type aspect struct {
	weight int
	has    func(*catalog.Track, Truth) bool
}

// MaxGrade is the highest grade a track gets for a query.
const MaxGrade = 3

// Grade is the relevance (0..MaxGrade) of t, whose truth is tr, for q.
func (q Query) Grade(t *catalog.Track, tr Truth) int {
	g := 0
	for _, a := range q.aspects {
		if a.has(t, tr) {
			g += a.weight
		}
	}
	return min(g, MaxGrade)
}

// TruthOf is the truth of a track of c (by its name).
func (c Catalog) TruthOf(t *catalog.Track) Truth { return c.Truth[t.Name] }

type rule = func(*catalog.Track, Truth) bool

func mood(ms ...string) rule {
	return func(t *catalog.Track, _ Truth) bool {
		return slices.Contains(ms, t.Mood) || slices.Contains(ms, t.SecondaryMood)
	}
}
func sub(ss ...string) rule {
	return func(t *catalog.Track, _ Truth) bool { return slices.Contains(ss, t.Subgenre) }
}
func genre(gs ...string) rule {
	return func(t *catalog.Track, _ Truth) bool { return slices.Contains(gs, t.Genre) }
}
func voc(vs ...string) rule {
	return func(t *catalog.Track, _ Truth) bool { return slices.Contains(vs, t.Vocals) }
}
func band(b string) rule {
	return func(t *catalog.Track, _ Truth) bool { return t.Tempo != nil && catalog.TempoDescriptor(*t.Tempo) == b }
}
func choir(t *catalog.Track, tr Truth) bool { return tr.Choir }
func plays(inst ...string) rule {
	return func(_ *catalog.Track, tr Truth) bool {
		for _, i := range inst {
			if slices.Contains(tr.Instruments, i) {
				return true
			}
		}
		return false
	}
}
func both(a, b rule) rule {
	return func(t *catalog.Track, tr Truth) bool { return a(t, tr) && b(t, tr) }
}

func main2(r rule) aspect { return aspect{2, r} }
func also(r rule) aspect  { return aspect{1, r} }

var (
	slow  = band(catalog.TempoSlow)
	fast  = band(catalog.TempoFast)
	instr = voc(catalog.VocalsInstrumental)
	sung  = voc(catalog.VocalsFemale, catalog.VocalsMale, catalog.VocalsMixed)
	woman = voc(catalog.VocalsFemale, catalog.VocalsMixed)
	man   = voc(catalog.VocalsMale, catalog.VocalsMixed)
)

// Mood groups the rules share.
var (
	tender   = []string{"Romantic", "Sensual", "Sentimental"}
	restful  = []string{"Peaceful", "Relaxed", "Dreamy"}
	sorrow   = []string{"Sad", "Melancholic", "Sentimental"}
	joyful   = []string{"Happy", "Playful", "Funny"}
	driven   = []string{"Energetic", "Aggressive", "Triumphant"}
	fearful  = []string{"Scary", "Tense", "Dark"}
	grandeur = []string{"Epic", "Triumphant"}
	heart    = []string{"Hopeful", "Uplifting"}
)

// Queries are the set's situations and intents.
var Queries = []Query{
	// bedtime, sleep, rest
	{"music for bedtime", []aspect{main2(mood(restful...)), also(slow), also(sub("Nursery", "New Age", "Neo-Classical"))}},
	{"putting the baby to sleep", []aspect{main2(sub("Nursery")), also(mood(restful...))}},
	{"a lullaby sung by a mom", []aspect{main2(sub("Nursery")), also(woman)}},
	{"drifting off after a long day", []aspect{main2(mood(restful...)), also(slow)}},
	{"nap time for a toddler", []aspect{main2(sub("Nursery")), also(slow)}},
	{"winding down before sleep", []aspect{main2(both(mood(restful...), slow)), also(instr)}},
	{"spa massage room", []aspect{main2(sub("New Age", "Trip Hop")), also(mood("Peaceful", "Relaxed"))}},
	{"mindful breathing exercise", []aspect{main2(sub("New Age")), also(mood("Peaceful", "Spiritual"))}},
	{"lazy sunday on the sofa", []aspect{main2(mood("Relaxed", "Peaceful")), also(sub("Lo-fi Hip Hop", "Bossa Nova", "Trip Hop", "Acoustic Pop"))}},
	{"studying late in the library", []aspect{main2(sub("Lo-fi Hip Hop", "Neo-Classical", "Trip Hop")), also(instr)}},

	// romance
	{"a romantic evening", []aspect{main2(mood(tender...)), also(sub("Smooth Jazz", "Soul", "Bossa Nova"))}},
	{"candlelit dinner for two", []aspect{main2(mood("Romantic", "Sensual")), also(genre("Jazz", "R&B"))}},
	{"slow dance with my sweetheart", []aspect{main2(mood("Romantic", "Sensual")), also(slow)}},
	{"proposing on the beach", []aspect{main2(mood("Romantic")), also(sub("Acoustic Pop", "Bossa Nova", "Singer-Songwriter"))}},
	{"valentine's day love song by a man", []aspect{main2(mood("Romantic", "Sensual")), also(man)}},
	{"a woman singing a love song", []aspect{main2(mood("Romantic", "Sensual")), also(woman)}},
	{"seductive late night groove", []aspect{main2(mood("Sensual", "Sexy")), also(sub("Smooth Jazz", "Soul", "Trip Hop"))}},
	{"love duet for two voices", []aspect{main2(mood("Romantic", "Sentimental")), also(voc(catalog.VocalsMixed))}},
	{"anniversary dinner at a wine bar", []aspect{main2(sub("Smooth Jazz", "Bossa Nova")), also(mood(tender...))}},
	{"tango of passion in spain", []aspect{main2(sub("Flamenco")), also(mood("Sensual", "Dramatic"))}},

	// action, scenes
	{"an action scene", []aspect{main2(mood(driven...)), also(fast), also(genre("Cinematic", "Rock", "Electronic"))}},
	{"car chase through downtown", []aspect{main2(mood("Energetic", "Tense", "Aggressive")), also(fast)}},
	{"final battle against the dragon", []aspect{main2(sub("Epic Orchestral")), also(mood(grandeur...))}},
	{"superhero movie trailer", []aspect{main2(sub("Epic Orchestral")), also(mood("Epic", "Triumphant", "Tense"))}},
	{"bank heist gone wrong", []aspect{main2(sub("Underscore")), also(mood("Tense", "Dark"))}},
	{"detective follows a suspect at night", []aspect{main2(sub("Underscore")), also(mood("Mysterious", "Tense"))}},
	{"bomb timer counting down", []aspect{main2(mood("Tense")), also(sub("Underscore"))}},
	{"zombie attack", []aspect{main2(sub("Macabre")), also(mood(fearful...))}},
	{"walking into a haunted house", []aspect{main2(sub("Macabre")), also(mood("Scary", "Mysterious"))}},
	{"a jump scare in the cellar", []aspect{main2(mood("Scary")), also(sub("Macabre"))}},
	{"villain's lair", []aspect{main2(mood("Dark")), also(genre("Cinematic"))}},
	{"street fight in a video game", []aspect{main2(mood("Aggressive", "Energetic")), also(fast)}},
	{"motorcycle stunts", []aspect{main2(mood("Aggressive", "Energetic")), also(genre("Rock"))}},
	{"sword fight on a castle wall", []aspect{main2(sub("Epic Orchestral")), also(mood("Epic", "Tense"))}},
	{"sneaking past the guards", []aspect{main2(mood("Tense", "Mysterious")), also(sub("Underscore"))}},
	{"wildlife film about whales", []aspect{main2(sub("Documentary")), also(mood("Peaceful", "Hopeful"))}},
	{"exploring an ancient ruin", []aspect{main2(mood("Mysterious")), also(genre("Cinematic", "Ambient"))}},
	{"floating through outer space", []aspect{main2(sub("Space Music", "Synthwave", "New Age")), also(mood("Dreamy", "Mysterious"))}},

	// feelings sung by a voice of a given gender
	{"sad song sung by a woman", []aspect{main2(mood(sorrow...)), also(woman)}},
	{"a man singing about heartbreak", []aspect{main2(mood(sorrow...)), also(man)}},
	{"angry guy shouting over guitars", []aspect{main2(mood("Aggressive")), also(man), also(genre("Rock"))}},
	{"happy tune with a girl singing", []aspect{main2(mood(joyful...)), also(woman)}},
	{"hopeful ballad with a female voice", []aspect{main2(mood(heart...)), also(woman)}},
	{"lonely man with a guitar", []aspect{main2(mood("Melancholic", "Sad")), also(man), also(plays("acoustic guitar", "slide guitar"))}},
	{"a woman's voice, soft and tender", []aspect{main2(woman), also(mood("Romantic", "Sentimental", "Peaceful"))}},
	{"confident rapper with attitude", []aspect{main2(genre("Hip Hop")), also(mood("Confident", "Aggressive")), also(sung)}},
	{"joyful female vocal for a commercial", []aspect{main2(mood("Happy", "Uplifting")), also(woman)}},
	{"nostalgic song sung by a man", []aspect{main2(mood("Nostalgic")), also(man)}},
	{"sexy female singer", []aspect{main2(mood("Sexy", "Sensual")), also(woman)}},
	{"sung by a deep male voice", []aspect{main2(man)}},
	{"only a female singer", []aspect{main2(voc(catalog.VocalsFemale))}},
	{"no singing at all, just instruments", []aspect{main2(instr)}},

	// ceremonies and occasions
	{"wedding ceremony", []aspect{main2(mood("Romantic", "Sentimental", "Peaceful")), also(sub("Chamber", "Neo-Classical", "Choral"))}},
	{"walking down the aisle", []aspect{main2(mood("Romantic", "Sentimental")), also(sub("Chamber", "Neo-Classical"))}},
	{"funeral service", []aspect{main2(mood("Sad", "Melancholic", "Spiritual")), also(slow)}},
	{"memorial for a lost friend", []aspect{main2(mood(sorrow...)), also(slow)}},
	{"graduation day", []aspect{main2(mood("Triumphant", "Uplifting", "Hopeful"))}},
	{"award ceremony entrance", []aspect{main2(mood(grandeur...)), also(sub("Epic Orchestral"))}},
	{"sunday church service", []aspect{main2(sub("Gospel", "Choral")), also(mood("Spiritual"))}},
	{"christmas eve by the fireplace", []aspect{main2(sub("Christmas")), also(mood("Peaceful", "Nostalgic", "Happy"))}},
	{"holiday shopping ad with jingle bells", []aspect{main2(sub("Christmas")), also(mood("Happy"))}},
	{"birthday party for a six year old", []aspect{main2(sub("Children's")), also(mood(joyful...))}},
	{"new year's eve party", []aspect{main2(sub("House", "Dance Pop", "Latin")), also(mood("Energetic", "Happy"))}},
	{"prayer and worship", []aspect{main2(mood("Spiritual")), also(sub("Gospel", "Choral"))}},
	{"a coronation in a cathedral", []aspect{main2(sub("Choral", "Epic Orchestral")), also(choir)}},
	{"dinner party with friends", []aspect{main2(sub("Bossa Nova", "Smooth Jazz", "Soul", "Trip Hop")), also(mood("Relaxed", "Happy"))}},

	// ensembles and instruments
	{"ensemble with a choir", []aspect{main2(choir), also(genre("Classical", "Cinematic", "R&B"))}},
	{"many voices singing together", []aspect{main2(choir)}},
	{"epic score with a choir", []aspect{main2(choir), also(sub("Epic Orchestral"))}},
	{"a big band with trumpets", []aspect{main2(sub("Swing")), also(plays("trumpet", "horns", "brass"))}},
	{"just a piano", []aspect{main2(sub("Neo-Classical")), also(instr)}},
	{"chamber strings", []aspect{main2(sub("Chamber")), also(mood(tender...))}},
	{"a whole orchestra", []aspect{main2(sub("Epic Orchestral")), also(genre("Cinematic", "Classical"))}},
	{"fiddle and banjo", []aspect{main2(plays("fiddle", "banjo")), also(genre("Folk"))}},
	{"a saxophone at night", []aspect{main2(sub("Smooth Jazz")), also(mood("Sensual", "Romantic", "Relaxed"))}},
	{"bagpipes and whistles", []aspect{main2(sub("Celtic"))}},
	{"heavy guitars and drums", []aspect{main2(sub("Hard Rock", "Metal")), also(mood("Aggressive"))}},
	{"brass section and congas", []aspect{main2(sub("Latin")), also(plays("brass", "horns"))}},

	// activities and places
	{"morning workout", []aspect{main2(mood("Energetic", "Triumphant")), also(fast)}},
	{"running a marathon", []aspect{main2(mood("Energetic", "Triumphant", "Uplifting")), also(fast)}},
	{"lifting weights at the gym", []aspect{main2(mood("Aggressive", "Energetic")), also(fast)}},
	{"road trip across the desert", []aspect{main2(sub("Country", "Indie Rock", "Delta Blues")), also(mood("Happy", "Nostalgic", "Hopeful"))}},
	{"beach bar at sunset", []aspect{main2(sub("Bossa Nova", "Reggae", "Trip Hop")), also(mood("Relaxed"))}},
	{"tropical island holiday", []aspect{main2(sub("Reggae", "Bossa Nova", "Latin")), also(mood("Happy", "Relaxed"))}},
	{"coffee shop in the morning", []aspect{main2(sub("Acoustic Pop", "Bossa Nova", "Singer-Songwriter", "Lo-fi Hip Hop")), also(mood("Relaxed", "Happy"))}},
	{"nightclub dance floor", []aspect{main2(sub("House", "Techno", "Dance Pop")), also(mood("Energetic"))}},
	{"underground rave at 4am", []aspect{main2(sub("Techno")), also(fast)}},
	{"salsa dancing", []aspect{main2(sub("Latin")), also(mood("Energetic", "Sexy"))}},
	{"an irish pub", []aspect{main2(sub("Celtic")), also(mood(joyful...))}},
	{"cowboys on the ranch", []aspect{main2(sub("Country"))}},
	{"smoky juke joint", []aspect{main2(sub("Delta Blues"))}},
	{"skatepark video", []aspect{main2(sub("Hard Rock", "Indie Rock", "Boom Bap")), also(mood("Energetic"))}},
	{"driving at night through a neon city", []aspect{main2(sub("Synthwave")), also(mood("Dreamy", "Mysterious", "Nostalgic"))}},
	{"retro video game", []aspect{main2(sub("Synthwave")), also(mood("Playful", "Nostalgic", "Energetic"))}},
	{"cooking show intro", []aspect{main2(mood(joyful...)), also(sub("Swing", "Funk", "Acoustic Pop", "Latin"))}},
	{"kids cartoon", []aspect{main2(sub("Children's")), also(mood("Playful", "Funny"))}},
	{"clown slipping on a banana", []aspect{main2(mood("Funny", "Playful")), also(sub("Children's"))}},
	{"seventies disco roller rink", []aspect{main2(sub("Funk")), also(mood("Confident", "Energetic", "Playful"))}},

	// moods and atmospheres in other words
	{"rainy day blues", []aspect{main2(mood("Melancholic", "Sad")), also(slow)}},
	{"feeling down and alone", []aspect{main2(mood("Sad", "Melancholic")), also(slow)}},
	{"pure joy", []aspect{main2(mood("Happy", "Uplifting"))}},
	{"something to cheer me up", []aspect{main2(mood("Happy", "Uplifting", "Playful"))}},
	{"remembering the good old days", []aspect{main2(mood("Nostalgic", "Sentimental"))}},
	{"anxious and restless", []aspect{main2(mood("Tense")), also(mood("Dark", "Mysterious"))}},
	{"eerie and unsettling", []aspect{main2(mood("Scary", "Mysterious")), also(sub("Macabre", "Space Music"))}},
	{"victory lap", []aspect{main2(mood("Triumphant", "Epic"))}},
	{"hope after hard times", []aspect{main2(mood("Hopeful", "Uplifting"))}},
	{"chill and carefree", []aspect{main2(mood("Relaxed", "Happy"))}},
	{"majestic and grand", []aspect{main2(mood("Epic", "Triumphant")), also(genre("Cinematic"))}},
	{"holy and reverent", []aspect{main2(mood("Spiritual")), also(choir)}},
	{"passionate and stormy", []aspect{main2(mood("Dramatic", "Sensual")), also(sub("Flamenco"))}},
	{"goofy and silly", []aspect{main2(mood("Funny", "Playful"))}},
	{"hypnotic and relentless", []aspect{main2(sub("Techno", "Space Music")), also(mood("Tense", "Mysterious"))}},
	{"deep meditative hum", []aspect{main2(sub("Space Music", "New Age"))}},
}
