package tuning3

import (
	"slices"

	"musiccatalog/pkg/catalog"
)

// Want is what a cue must have to answer one part of a query; every
// field set must hold (a field's values are alternatives).
type Want struct {
	Moods, Subs, Genres, Vocals []string
	Band                        string // a tempo band
	Choir, Solo                 bool
	Plays                       []string // palette keys
}

// Query is a situation as an end user types it: the main want (worth 2)
// and the qualifiers (worth 1 each). A cue's grade is the sum of what it
// meets, capped at MaxGrade.
type Query struct {
	Text string
	Main Want
	Also []Want
}

// MaxGrade is the highest grade a cue gets for a query.
const MaxGrade = 3

// Grade is the relevance (0..MaxGrade) of t, whose truth is tr, for q.
func (q Query) Grade(t *catalog.Track, tr Truth) int {
	g := 0
	if q.Main.met(t, tr) {
		g += 2
	}
	for _, w := range q.Also {
		if w.met(t, tr) {
			g++
		}
	}
	return min(g, MaxGrade)
}

// TruthOf is the truth of a cue of c (by its name).
func (c Catalog) TruthOf(t *catalog.Track) Truth { return c.Truth[t.Name] }

func (w Want) met(t *catalog.Track, tr Truth) bool {
	anyOf := func(vals []string, have ...string) bool {
		if len(vals) == 0 {
			return true
		}
		for _, h := range have {
			if h != "" && slices.Contains(vals, h) {
				return true
			}
		}
		return false
	}
	if !anyOf(w.Moods, t.Mood, t.SecondaryMood) || !anyOf(w.Subs, t.Subgenre) ||
		!anyOf(w.Genres, t.Genre) || !anyOf(w.Vocals, t.Vocals) || !anyOf(w.Plays, tr.Palette...) {
		return false
	}
	if w.Band != "" && (t.Tempo == nil || catalog.TempoDescriptor(*t.Tempo) != w.Band) {
		return false
	}
	return (!w.Choir || tr.Choir) && (!w.Solo || tr.Solo)
}

// Shorthands the query list reads with.
func m(ms ...string) Want { return Want{Moods: ms} }
func s(ss ...string) Want { return Want{Subs: ss} }
func g(gs ...string) Want { return Want{Genres: gs} }
func v(vs ...string) Want { return Want{Vocals: vs} }
func p(ps ...string) Want { return Want{Plays: ps} }

var (
	slow    = Want{Band: catalog.TempoSlow}
	fast    = Want{Band: catalog.TempoFast}
	instr   = v(catalog.VocalsInstrumental)
	sung    = v(catalog.VocalsFemale, catalog.VocalsMale, catalog.VocalsMixed)
	aWoman  = v(catalog.VocalsFemale, catalog.VocalsMixed)
	aMan    = v(catalog.VocalsMale, catalog.VocalsMixed)
	aChoir  = Want{Choir: true}
	onlyOne = Want{Solo: true}
)

func q(text string, main Want, also ...Want) Query { return Query{Text: text, Main: main, Also: also} }

// Queries are the set's situations, by theme.
var Queries = []Query{
	// Life events and ceremonies.
	q("first dance at our wedding reception", m("Tender", "Sultry"), s("Power Ballad", "Neo Soul", "Romantic Piano", "Lounge")),
	q("the bride enters the church", m("Tender", "Reverent", "Majestic"), s("Baroque", "Romantic Piano", "Gospel Choir", "Opera")),
	q("saying goodbye to grandpa at the service", m("Somber", "Reverent"), slow),
	q("scattering ashes by the sea", m("Somber", "Wistful", "Serene"), slow),
	q("baby shower games", s("Sing-Along", "Lullaby", "Indie Pop"), m("Joyful", "Whimsical")),
	q("retirement party slideshow", m("Wistful", "Joyful", "Tender"), s("Americana", "Indie Pop", "Power Ballad")),
	q("high school prom night", s("Bubblegum Pop", "Future Bass", "Power Ballad", "Reggaeton"), m("Joyful", "Festive", "Tender")),
	q("bar mitzvah dance floor", m("Festive", "Joyful"), s("Bubblegum Pop", "Future Bass", "Afrobeat", "Reggaeton")),
	q("a knighting ceremony in the great hall", s("Baroque", "Hybrid Trailer", "Fantasy Adventure", "Marching Band"), m("Majestic", "Heroic")),
	q("christening at the village chapel", m("Reverent"), s("Chant", "Gospel Choir", "Baroque")),
	q("indian wedding celebration", s("Bollywood"), m("Festive")),
	q("memorial day parade", s("Marching Band"), m("Heroic")),
	q("the moment she says yes", m("Tender", "Inspiring"), s("Power Ballad", "Romantic Piano", "Indie Pop")),
	q("mourning a lost pet", m("Somber", "Wistful"), slow),
	q("toast at the golden anniversary dinner", m("Tender", "Wistful", "Sultry"), s("Lounge", "Neo Soul", "Romantic Piano")),
	q("welcome home party for a soldier", m("Heroic", "Inspiring", "Festive"), s("Marching Band", "Power Ballad")),
	q("the day the divorce came through", m("Somber", "Wistful")),
	q("bringing the new baby home", m("Tender", "Serene"), s("Lullaby", "Romantic Piano", "Indie Pop")),

	// Times of day and seasons.
	q("3am and can't sleep", m("Serene", "Wistful", "Somber"), slow),
	q("first coffee at sunrise", m("Serene", "Carefree", "Joyful"), s("Chillwave", "Downtempo", "Americana", "Indie Pop")),
	q("hot july afternoon", m("Carefree", "Joyful"), s("Surf Rock", "Chillwave", "Reggaeton", "Indie Pop")),
	q("crisp autumn walk in the woods", m("Wistful", "Serene"), s("Americana", "Nature Soundscape", "Post-Rock")),
	q("snowed in on christmas morning", s("Winter Holiday"), m("Tender", "Festive", "Joyful")),
	q("spooky october night", s("Halloween", "Horror Score"), m("Eerie")),
	q("midnight in a big city", s("Lounge", "Bebop", "Downtempo", "Drill", "Chicago Blues"), m("Sultry", "Brooding")),
	q("lazy saturday morning in bed", m("Serene", "Carefree", "Sultry"), s("Neo Soul", "Downtempo", "Chillwave")),
	q("the longest night of winter", m("Somber", "Serene", "Brooding"), slow),
	q("spring blossoms in the park", m("Joyful", "Carefree", "Serene"), s("Indie Pop", "Americana")),
	q("dusk on the porch", s("Americana", "Chicago Blues"), m("Wistful", "Carefree")),
	q("new year's day fresh start", m("Inspiring", "Joyful"), s("Motivational", "Power Ballad")),
	q("rainy monday blues", m("Wistful", "Somber"), s("Chicago Blues", "Romantic Piano")),
	q("end of summer goodbye", m("Wistful"), s("Chillwave", "Indie Pop", "Americana")),

	// Places and travel.
	q("wandering a spice market in marrakech", s("Middle Eastern"), m("Enigmatic")),
	q("a night at a paris cafe", s("Gypsy Jazz", "Lounge"), m("Carefree", "Sultry")),
	q("buenos aires dance hall", s("Tango")),
	q("crossing the sahara by camel", s("Middle Eastern"), m("Enigmatic", "Majestic")),
	q("island hopping in the caribbean", s("Reggaeton", "Surf Rock"), m("Carefree", "Festive")),
	q("backpacking through west africa", s("Afrobeat"), m("Festive", "Joyful")),
	q("driving route 66", s("Americana", "Surf Rock", "Chicago Blues"), m("Carefree", "Wistful")),
	q("a tokyo arcade", s("Chiptune", "Future Bass"), m("Whimsical", "Driving")),
	q("old pub by the harbour", s("Sea Shanty"), m("Festive")),
	q("a monastery high in the mountains", s("Chant"), m("Reverent", "Serene")),
	q("foggy rainforest at dawn", s("Nature Soundscape"), m("Serene", "Enigmatic")),
	q("a chicago dive bar", s("Chicago Blues")),
	q("luxury hotel rooftop bar", s("Lounge", "Downtempo"), m("Sultry")),
	q("touring the palace of versailles", s("Baroque"), m("Majestic")),
	q("mumbai street festival", s("Bollywood"), m("Festive", "Joyful")),

	// Sports and activities.
	q("hitting the heavy bag", m("Fierce", "Driving"), fast),
	q("final sprint to the finish line", m("Driving", "Heroic", "Inspiring"), fast),
	q("surfing big waves", s("Surf Rock", "Punk Rock", "Dubstep"), m("Driving", "Carefree")),
	q("snowboard park edit", s("Dubstep", "Punk Rock", "Future Bass"), m("Fierce", "Driving")),
	q("sunday stroll with the dog", m("Carefree", "Joyful"), s("Indie Pop", "Americana")),
	q("gentle stretching before bed", m("Serene"), s("Sleep", "Nature Soundscape"), slow),
	q("hot yoga flow", s("Downtempo", "Nature Soundscape", "Sleep"), m("Serene")),
	q("pregame locker room speech", m("Heroic", "Driving", "Inspiring"), s("Hybrid Trailer", "Marching Band", "Drill")),
	q("halftime show at the stadium", s("Marching Band"), m("Festive", "Heroic")),
	q("cleaning the house on a saturday", m("Joyful", "Carefree", "Driving"), s("Bubblegum Pop", "Indie Pop", "Afrobeat", "Motivational")),
	q("knitting by the window", m("Serene", "Tender"), s("Romantic Piano", "Americana", "Downtempo")),
	q("skateboarding downhill", s("Punk Rock", "Surf Rock"), m("Carefree", "Driving")),
	q("cramming for finals at 2am", s("Chillwave", "Downtempo", "Tech Minimal"), instr),
	q("painting in a sunny studio", m("Serene", "Carefree"), s("Chillwave", "Downtempo", "Indie Pop")),
	q("rowing the boat together", s("Sea Shanty"), aChoir),
	q("a long bike ride in the countryside", m("Carefree", "Joyful"), s("Americana", "Indie Pop")),

	// Film, advertising and video scenes.
	q("trailer for a superhero sequel", s("Hybrid Trailer"), m("Heroic", "Majestic")),
	q("slasher in the woods", s("Horror Score"), m("Eerie", "Suspenseful")),
	q("a creepy doll in the attic", s("Horror Score", "Halloween"), m("Eerie")),
	q("dragon flying over the kingdom", s("Fantasy Adventure"), m("Majestic", "Heroic")),
	q("period drama ball scene", s("Baroque"), m("Majestic", "Joyful")),
	q("mob boss in a smoky club", s("Lounge", "Tango", "Chicago Blues", "Bebop"), m("Sultry", "Brooding")),
	q("the hacker breaks in", s("Tech Minimal", "Dubstep", "Drill", "Horror Score"), m("Suspenseful", "Brooding", "Enigmatic")),
	q("cat video compilation", s("Quirky", "Sing-Along", "Chiptune"), m("Whimsical")),
	q("bumbling burglar sneaks around", s("Quirky"), m("Whimsical")),
	q("car commercial on a coastal road", s("Surf Rock", "Chillwave", "Post-Rock", "Motivational"), m("Carefree", "Inspiring")),
	q("perfume ad in black and white", m("Sultry"), s("Tango", "Lounge", "Downtempo", "Neo Soul")),
	q("app explainer video", s("Tech Minimal", "Motivational"), instr),
	q("quarterly results presentation", g("Corporate"), m("Inspiring")),
	q("charity appeal for clean water", s("Emotional Underscore", "Gospel Choir", "Post-Rock"), m("Inspiring", "Tender", "Somber")),
	q("wildlife documentary about owls", s("Nature Soundscape", "Emotional Underscore", "Post-Rock"), m("Serene", "Enigmatic")),
	q("heist planning montage", s("Bebop", "Tech Minimal", "Hybrid Trailer", "Horror Score"), m("Suspenseful")),
	q("pirate ship battle", s("Sea Shanty", "Fantasy Adventure", "Hybrid Trailer"), m("Heroic")),
	q("gangster rap music video", s("Drill"), sung),
	q("sci-fi launch sequence", s("Hybrid Trailer", "Tech Minimal", "Post-Rock"), m("Majestic", "Suspenseful")),
	q("8-bit platformer level", s("Chiptune")),
	q("sitcom scene transition", s("Quirky", "Bebop", "Indie Pop"), m("Whimsical", "Joyful")),
	q("fashion runway in milan", s("Future Bass", "Downtempo", "Reggaeton", "Tango"), m("Sultry", "Driving")),
	q("closing scene as the hero rides away", m("Heroic", "Majestic", "Wistful"), s("Post-Rock", "Fantasy Adventure", "Americana")),
	q("a medieval monk copying manuscripts", s("Chant"), m("Reverent")),

	// Feelings described indirectly.
	q("when the tears finally come", m("Somber", "Wistful"), slow),
	q("butterflies before a first date", m("Tender", "Joyful", "Whimsical"), s("Indie Pop", "Neo Soul", "Bubblegum Pop")),
	q("like the world is against me", m("Fierce", "Brooding")),
	q("goosebumps on a mountaintop", m("Majestic", "Inspiring", "Heroic"), s("Post-Rock", "Hybrid Trailer", "Fantasy Adventure")),
	q("a knot in my stomach", m("Suspenseful", "Eerie")),
	q("ready to conquer the world", m("Heroic", "Driving", "Inspiring")),
	q("missing someone far away", m("Wistful", "Somber", "Tender"), sung),
	q("the house is too quiet now", m("Somber", "Wistful"), s("Romantic Piano", "Emotional Underscore")),
	q("smiling for no reason", m("Joyful", "Carefree", "Whimsical")),
	q("slow-burning desire", m("Sultry"), slow),
	q("someone is watching from the trees", m("Eerie", "Suspenseful"), s("Horror Score", "Nature Soundscape")),
	q("fed up and want to scream", m("Fierce"), s("Punk Rock", "Dubstep", "Drill")),
	q("feeling small under the stars", m("Majestic", "Serene", "Enigmatic"), s("Post-Rock", "Nature Soundscape", "Sleep")),
	q("a warm hug in a song", m("Tender"), sung),
	q("bittersweet memories of college", m("Wistful"), s("Indie Pop", "Chillwave", "Americana")),
	q("calm after the storm", m("Serene"), slow),
	q("giddy and mischievous", m("Whimsical")),
	q("grateful and blessed", m("Reverent", "Inspiring", "Joyful"), s("Gospel Choir")),

	// Voices, ensembles and instruments in lay words.
	q("a church full of singers", aChoir, g("Sacred")),
	q("monks singing together", s("Chant")),
	q("a lady belting a big ballad", s("Power Ballad", "Opera"), aWoman),
	q("a guy crooning softly", aMan, m("Tender", "Sultry")),
	q("boy and girl singing to each other", v(catalog.VocalsMixed), m("Tender", "Sultry")),
	q("just one piano, nothing else", onlyOne),
	q("squeezebox and fiddle", p("accordion", "fiddle", "bandoneon", "violin")),
	q("the twangy guitar from old beach movies", s("Surf Rock")),
	q("lots of drums and horns in a parade", s("Marching Band"), p("brass")),
	q("those wobbly robot bass sounds", s("Dubstep")),
	q("old video game bleeps", s("Chiptune")),
	q("a big orchestra with a choir", aChoir, g("Cinematic", "Classical")),
	q("sitar and tabla", s("Bollywood")),
	q("harpsichord and strings", s("Baroque")),
	q("soft female vocals over chill beats", aWoman, s("Downtempo", "Chillwave", "Neo Soul")),
	q("deep male voice over a bluesy guitar", s("Chicago Blues"), aMan),
	q("no lyrics, calm music to work to", Want{Vocals: instr.Vocals, Moods: []string{"Serene", "Tender"}}, s("Downtempo", "Chillwave", "Tech Minimal")),
	q("operatic soprano", s("Opera"), aWoman),
	q("a rowdy crowd of sailors singing", s("Sea Shanty"), aChoir),

	// Audiences: children, companies, generations.
	q("for toddlers to dance to", s("Sing-Along", "Bubblegum Pop"), m("Joyful", "Whimsical")),
	q("helping a newborn drift off", s("Lullaby", "Sleep"), slow),
	q("background for a sales webinar", g("Corporate"), instr),
	q("an onboarding video for new employees", s("Motivational", "Tech Minimal"), m("Inspiring", "Joyful")),
	q("preschool learning app", s("Sing-Along", "Lullaby", "Chiptune"), m("Whimsical", "Joyful")),
	q("teenagers at a skate park", s("Punk Rock", "Drill", "Dubstep", "Surf Rock"), m("Driving", "Fierce")),
	q("grandparents' tea dance", s("Lounge", "Bebop", "Gypsy Jazz", "Tango"), m("Tender", "Carefree")),
	q("startup investor pitch", g("Corporate"), m("Inspiring", "Driving")),
}
