package tuning3

// ContextQueries are the fourth tuning set (issue 15, context round):
// situations over this package's catalog, graded by the same wants, in
// which a word means what its neighbours make it mean. Written before the
// context reading was tuned on them, in four kinds: words whose music
// sense is a homonym of a common word (read out of and in musical
// context), a feeling beside topic nouns that carry other moods by
// association, idioms and multi-word expressions, and the places, eras and
// venues music libraries associate with styles.
var ContextQueries = []Query{
	// A music word's everyday sense, read out of musical context.
	q("rock bottom after losing my job", m("Somber", "Wistful"), slow),
	q("moving into our first house together", m("Tender", "Joyful", "Carefree"), s("Indie Pop", "Americana")),
	q("soul searching on a long walk alone", m("Wistful", "Serene"), slow),
	q("pop the champagne, we got engaged", m("Festive", "Joyful"), m("Tender")),
	q("a trap door creaks open in the castle", m("Eerie", "Suspenseful"), s("Horror Score", "Halloween")),
	q("garage sale on a sunny morning", m("Carefree", "Joyful"), s("Indie Pop", "Americana")),
	q("bass fishing on a quiet lake", m("Serene", "Carefree"), s("Americana", "Nature Soundscape")),
	q("the key to her heart", m("Tender", "Sultry"), sung),
	q("a band of thieves plans the robbery", m("Suspenseful", "Brooding"), s("Bebop", "Tech Minimal", "Hybrid Trailer", "Horror Score")),
	q("she broke the world record", m("Heroic", "Inspiring", "Driving")),
	q("the organ donor who saved her life", m("Inspiring", "Tender", "Somber"), s("Emotional Underscore", "Power Ballad")),
	q("drill sergeant barking at recruits", s("Marching Band"), m("Driving", "Heroic")),
	// The same words in musical context keep their music sense.
	q("soul singer with a warm voice", s("Neo Soul"), sung),
	q("punk rock for a skate session", s("Punk Rock")),
	q("trap beat with a dark piano", s("Drill"), m("Brooding")),
	q("organ and choir in a stone church", g("Sacred"), aChoir),

	// A feeling before the topic's associations.
	q("grieving my old dog", m("Somber", "Wistful"), slow),
	q("heartbroken at the carnival", m("Somber", "Wistful")),
	q("lonely at the office christmas party", m("Wistful", "Somber")),
	q("anxious in the hospital waiting room", m("Suspenseful", "Brooding")),
	q("homesick on a tropical beach", m("Wistful", "Somber")),
	q("furious in a traffic jam", m("Fierce"), fast),
	q("a sad clown at the circus", m("Somber", "Wistful"), slow),
	q("overjoyed in the maternity ward", m("Joyful", "Tender", "Inspiring")),
	q("calm in the middle of a busy station", m("Serene"), slow),
	q("dreading the wedding speech", m("Suspenseful", "Brooding")),
	q("missing my kids on a business trip", m("Wistful", "Tender"), sung),

	// Idioms and multi-word expressions.
	q("on pins and needles waiting for the results", m("Suspenseful")),
	q("down in the dumps all week", m("Somber", "Wistful"), slow),
	q("on cloud nine after the good news", m("Joyful", "Carefree")),
	q("getting cold feet the night before", m("Suspenseful", "Wistful")),
	q("blowing off steam after a long shift", m("Fierce", "Driving"), fast),
	q("letting my hair down on a friday night", m("Festive", "Carefree", "Joyful"), s("Bubblegum Pop", "Reggaeton", "Future Bass", "Afrobeat")),
	q("at the end of my rope", m("Somber", "Fierce", "Brooding")),
	q("scared stiff in the dark basement", m("Eerie", "Suspenseful"), s("Horror Score")),
	q("my heart in my throat on the ledge", m("Suspenseful"), s("Hybrid Trailer", "Horror Score")),

	// Places, eras and venues with their scenes.
	q("bourbon street at midnight", s("Bebop", "Chicago Blues", "Lounge"), m("Sultry", "Carefree")),
	q("a honky-tonk saloon", s("Americana", "Chicago Blues")),
	q("a speakeasy in the roaring twenties", s("Bebop", "Gypsy Jazz", "Lounge")),
	q("a cathedral at evensong", g("Sacred"), aChoir, m("Reverent")),
	q("sunset at an ibiza beach club", s("Future Bass", "Downtempo", "Chillwave", "Reggaeton"), m("Carefree", "Festive")),
	q("a south london estate at night", s("Drill"), m("Brooding", "Fierce")),
	q("a vienna ballroom", s("Baroque", "Opera"), m("Majestic", "Joyful")),
	q("sunday morning in a harlem church", s("Gospel Choir"), m("Reverent", "Joyful")),
	q("a 1950s diner jukebox", s("Surf Rock", "Americana", "Bebop"), m("Carefree", "Joyful")),
	q("a juke joint in the mississippi delta", s("Chicago Blues")),
	q("a havana street corner", s("Reggaeton", "Tango"), m("Festive", "Sultry")),
}
