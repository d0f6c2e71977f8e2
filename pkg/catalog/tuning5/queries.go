package tuning5

import (
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/tuning3"
)

// Query is a request as an end user types it: tuning3's main want (worth
// 2) and qualifiers (worth 1 each), and what the request excludes — a
// track that meets any of Not grades 0 whatever else it meets.
type Query struct {
	tuning3.Query
	Not []tuning3.Want
}

// MaxGrade is the highest grade a track gets for a query.
const MaxGrade = tuning3.MaxGrade

// Grade is the relevance (0..MaxGrade) of t, whose truth is tr, for q.
func (q Query) Grade(t *catalog.Track, tr tuning3.Truth) int {
	for _, w := range q.Not {
		if w.Met(t, tr) {
			return 0
		}
	}
	return q.Query.Grade(t, tr)
}

// Shorthands the query list reads with.
type want = tuning3.Want

func m(ms ...string) want { return want{Moods: ms} }
func s(ss ...string) want { return want{Subs: ss} }
func g(gs ...string) want { return want{Genres: gs} }
func p(ps ...string) want { return want{Plays: ps} }

var (
	slow    = want{Band: catalog.TempoSlow}
	fast    = want{Band: catalog.TempoFast}
	instr   = []string{catalog.VocalsInstrumental}
	aWoman  = []string{catalog.VocalsFemale, catalog.VocalsMixed}
	aMan    = []string{catalog.VocalsMale, catalog.VocalsMixed}
	sung    = want{Vocals: []string{catalog.VocalsFemale, catalog.VocalsMale, catalog.VocalsMixed}}
	noVoice = want{Vocals: instr}
	aChoir  = want{Choir: true}
	onlyOne = want{Solo: true}
)

func q(text string, main want, also ...want) Query {
	return Query{Query: tuning3.Query{Text: text, Main: main, Also: also}}
}

// not is q with exclusions.
func not(q Query, ws ...want) Query { q.Not = ws; return q }

// Queries are the set's requests, by kind.
var Queries = []Query{
	// Film and video scenes.
	q("car chase through the city at night", s("Drum and Bass", "Spy Thriller", "Industrial"), m("Tense", "Energetic"), fast),
	q("slow motion hero walking away from an explosion", s("Epic Orchestral", "Stadium Rock"), m("Epic", "Triumphant")),
	q("private eye in a rainy alley", s("Film Noir"), m("Mysterious")),
	q("two cowboys in a standoff at high noon", s("Western"), m("Tense")),
	q("the villain enters the throne room", m("Menacing"), s("Epic Orchestral", "Industrial", "Dark Ambient", "Requiem")),
	q("sneaking past the guards", m("Tense", "Mysterious"), s("Spy Thriller", "Film Noir", "Cartoon Chase")),
	q("a dog steals the turkey off the table", s("Cartoon Chase"), m("Playful")),
	q("drifting through an empty derelict spaceship", s("Dark Ambient"), m("Mysterious", "Menacing")),
	q("montage of a boxer training for the big fight", m("Triumphant", "Energetic"), s("Stadium Rock", "Epic Orchestral", "Thrash"), fast),

	// Occasions and ceremonies.
	q("walking down the aisle at a garden wedding", s("String Quartet", "Hymns", "Singer-Songwriter"), m("Loving", "Peaceful")),
	q("funeral for a fallen soldier", m("Gloomy", "Devotional", "Melancholy"), s("Requiem", "Hymns", "Country Ballad"), slow),
	q("sunday morning worship", s("Hymns"), aChoir),
	q("a mexican birthday fiesta", s("Mariachi"), m("Celebratory")),
	q("st patrick's day at the pub", s("Celtic"), m("Celebratory")),
	q("new year's eve countdown party", m("Celebratory", "Euphoric"), s("Disco", "K-Pop", "Trance", "Deep House")),
	q("graduation slideshow for the class of 2025", m("Hopeful", "Nostalgic", "Triumphant"), s("Inspirational Piano", "Stadium Rock", "Singer-Songwriter", "Upbeat Corporate")),
	q("christmas eve by the fire", s("Christmas Carols"), m("Loving", "Peaceful")),
	q("golden anniversary dinner dance", s("Motown Soul", "Big Band Swing", "Waltz", "Smooth Jazz"), m("Loving", "Nostalgic")),
	q("black tie gala in a grand ballroom", s("Waltz", "String Quartet", "Big Band Swing"), m("Loving", "Celebratory")),
	q("a candlelight vigil", m("Devotional", "Peaceful", "Melancholy"), slow),

	// Activities.
	q("morning yoga flow", s("Meditation", "Lo-Fi Beats"), m("Peaceful"), slow),
	q("late night study session", s("Lo-Fi Beats"), m("Laid-back", "Peaceful"), noVoice),
	q("going for a deadlift record at the gym", m("Energetic", "Menacing", "Triumphant"), s("Thrash", "Industrial", "Stadium Rock", "Drum and Bass"), fast),
	q("square dancing in a barn", s("Bluegrass"), m("Celebratory", "Playful")),
	q("sipping cocktails by the pool", s("Bossa Nova", "Smooth Jazz", "Deep House"), m("Laid-back", "Seductive")),
	q("dancing in the desert as the sun comes up", s("Trance", "Deep House"), m("Euphoric")),
	q("roller skating like it's the eighties", s("Synthpop", "Disco"), m("Nostalgic", "Playful")),
	q("jitterbug lesson at the community hall", s("Big Band Swing")),
	q("games at a five-year-old's birthday", s("Nursery Rhymes", "Cartoon Chase", "K-Pop"), m("Playful")),
	q("emptying my head before sleep", s("Meditation"), m("Peaceful"), slow),
	q("swinging in a hammock by the sea", s("Roots Reggae", "Bossa Nova"), m("Laid-back")),

	// Feelings sung by a voice.
	q("a woman singing about heartbreak", want{Moods: []string{"Melancholy", "Gloomy"}, Vocals: aWoman}, s("Singer-Songwriter", "Country Ballad")),
	q("love song sung by a man", want{Moods: []string{"Loving"}, Vocals: aMan}, s("Singer-Songwriter", "Motown Soul", "Country Ballad")),
	q("a duet about falling in love", want{Moods: []string{"Loving", "Seductive"}, Vocals: []string{catalog.VocalsMixed}}),
	q("an angry guy screaming over loud guitars", want{Subs: []string{"Thrash", "Grunge", "Industrial"}, Vocals: aMan}, m("Menacing")),
	q("a girl singing something happy and bouncy", want{Moods: []string{"Playful", "Euphoric", "Celebratory"}, Vocals: aWoman}, s("K-Pop", "Synthpop", "Nursery Rhymes")),
	q("a chorus mourning the dead", want{Choir: true, Moods: []string{"Gloomy", "Melancholy", "Devotional"}}, s("Requiem")),

	// Ensembles and instruments in lay words.
	q("a big band with a wall of trumpets and trombones", s("Big Band Swing"), p("trumpet section", "trombones")),
	q("only voices, no instruments at all", s("A Cappella")),
	q("a little group of violins and a cello", s("String Quartet")),
	q("banjo and fiddle pickers", s("Bluegrass")),
	q("just a piano on its own", onlyOne, m("Hopeful", "Melancholy")),
	q("a full orchestra and a huge choir", aChoir, s("Epic Orchestral", "Requiem")),
	q("serenade from a band in sombreros", s("Mariachi")),
	q("tin whistle and bagpipes", s("Celtic")),

	// Brand and ad briefs.
	q("upbeat explainer for a tech startup", s("Upbeat Corporate", "Documentary Underscore"), m("Hopeful", "Energetic")),
	q("luxury perfume commercial", m("Seductive"), s("Smooth Jazz", "Bossa Nova", "Deep House", "Film Noir", "Flamenco")),
	q("energy drink ad with extreme sports", m("Energetic"), s("Drum and Bass", "Thrash", "Garage Rock", "Industrial"), fast),
	q("heartwarming insurance ad about family", m("Hopeful", "Loving"), s("Inspirational Piano", "Documentary Underscore", "Singer-Songwriter")),
	q("fast food spot aimed at teenagers", m("Playful", "Energetic"), s("K-Pop", "Garage Rock", "Funk", "Upbeat Corporate")),
	q("a bank commercial that feels trustworthy", m("Hopeful", "Peaceful"), s("Upbeat Corporate", "Documentary Underscore", "Inspirational Piano"), noVoice),
	q("charity appeal for refugees", m("Melancholy", "Hopeful"), s("Inspirational Piano", "Documentary Underscore"), slow),

	// Platform content types.
	q("background for my cooking vlog", m("Playful", "Laid-back"), s("Bossa Nova", "Upbeat Corporate", "Funk", "Lo-Fi Beats"), noVoice),
	q("true crime podcast intro", m("Mysterious", "Tense"), s("Film Noir", "Dark Ambient", "Spy Thriller")),
	q("gym transformation reel", m("Energetic", "Triumphant"), s("Stadium Rock", "Drum and Bass", "Thrash", "Trance"), fast),
	q("travel vlog around ireland", s("Celtic"), m("Peaceful", "Nostalgic", "Celebratory")),
	q("unboxing video for a new gadget", s("Upbeat Corporate", "Synthpop", "K-Pop"), m("Playful", "Hopeful", "Energetic")),
	q("stream starting soon screen", s("Lo-Fi Beats", "Synthpop", "Drum and Bass"), m("Laid-back", "Energetic"), noVoice),
	q("tiktok dance challenge", s("K-Pop", "Disco"), m("Energetic", "Playful"), sung),
	q("study with me livestream", s("Lo-Fi Beats", "Meditation"), m("Peaceful", "Laid-back"), noVoice),
	q("wedding highlight reel for instagram", m("Loving"), s("Singer-Songwriter", "String Quartet", "Inspirational Piano")),

	// Negations.
	q("romantic dinner music without singing", want{Moods: []string{"Loving", "Seductive"}, Vocals: instr}, s("Smooth Jazz", "Bossa Nova", "String Quartet")),
	not(q("party music but nothing electronic", m("Celebratory", "Euphoric"), s("Disco", "Funk", "Big Band Swing", "Mariachi", "Garage Rock")), g("Electronic")),
	not(q("something relaxing with no piano", m("Peaceful", "Laid-back")), p("piano", "felt piano", "electric piano", "toy piano")),
	not(q("scary soundtrack with no choir", m("Menacing", "Spooky", "Tense"), s("Dark Ambient", "Industrial")), aChoir),
	not(q("a sad song that isn't slow", m("Melancholy", "Gloomy")), slow),
	q("workout music with no lyrics", want{Moods: []string{"Energetic"}, Vocals: instr}, fast),
	not(q("church music but no organ", m("Devotional"), aChoir), p("pipe organ")),

	// A facet named beside a situation.
	q("jazz for a rainy night in", g("Jazz"), m("Laid-back", "Melancholy", "Mysterious")),
	q("country songs for the long drive home", g("Country"), m("Nostalgic", "Melancholy")),
	q("electronic music for a sunrise set", g("Electronic"), m("Euphoric", "Hopeful")),
	q("female vocal pop for a summer road trip", want{Genres: []string{"Pop"}, Vocals: aWoman}, m("Playful", "Euphoric", "Celebratory")),
	q("instrumental classical for a dinner party", want{Genres: []string{"Classical"}, Vocals: instr}, m("Loving", "Peaceful", "Playful")),
	q("slow reggae for a beach sunset", s("Roots Reggae"), slow, m("Laid-back")),
	q("hip hop beat for a skate video", g("Hip Hop"), m("Nostalgic", "Menacing", "Laid-back")),
	q("upbeat fiddle music for a campfire", s("Bluegrass", "Celtic"), m("Celebratory", "Playful")),
}
