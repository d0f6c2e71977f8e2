package heldout

// The phrases descriptions are written with: what a mood, an energy, a
// tempo or a voice sounds like, in other words than the facet names.

var moodPhrases = map[string][]string{
	"Happy":       {"sunny and carefree", "grinning from the first bar", "light on its feet and glad to be here", "bright as a Saturday morning", "full of easy good cheer"},
	"Uplifting":   {"lifting you a little higher with every chorus", "rising toward the light", "a steady climb that leaves you taller", "chest-swelling and bright-eyed", "like a door swinging open"},
	"Energetic":   {"restless and full of fuel", "never once standing still", "pushing hard from start to finish", "wired and kinetic", "all sprint and no pause"},
	"Playful":     {"cheeky and bouncy", "with a wink in every phrase", "mischievous and light", "tongue-in-cheek", "like a game of tag"},
	"Hopeful":     {"looking toward a better morning", "quietly sure things will turn out fine", "a small light at the end of a long road", "optimistic without shouting about it", "like the first green after winter"},
	"Romantic":    {"tender, for two people and a candle", "warm as a long embrace", "heart-on-sleeve affection", "intimate and a little lovestruck", "soft as a whispered promise"},
	"Calm":        {"unhurried, like a long exhale", "still as water on a windless day", "settled and at ease", "with no rush and no edges", "easygoing and soft-spoken"},
	"Peaceful":    {"serene as an empty beach at dawn", "asking nothing of you", "a hush over everything", "untroubled and gentle", "quiet as snowfall"},
	"Dreamy":      {"hazy and half-awake", "drifting like clouds past a window", "soft-focus and floating", "half-way between a nap and waking", "gauzy and weightless"},
	"Sad":         {"heavy-hearted", "with tears close to the surface", "the ache after a goodbye", "sorrowful and reluctant to let go", "grief carried quietly"},
	"Melancholic": {"wistful, like old photographs", "bittersweet and rain-streaked", "a gentle ache for what is gone", "pensive and a little blue", "full of autumn-coloured longing"},
	"Dark":        {"shadowy and menacing", "as if something waits around the corner", "grim and heavy", "lit from below", "sinister and brooding"},
	"Tense":       {"on the edge of the seat", "with nerves pulled tight as wire", "like a clock ticking toward something", "uneasy, breath held", "suspended, waiting for the snap"},
	"Mysterious":  {"secretive and shrouded", "full of unanswered questions", "a locked door with light under it", "like fog over the hills", "curious and unresolved"},
	"Epic":        {"towering and larger than life", "built for the final charge", "vast and sweeping", "the moment the army crests the hill", "monumental"},
	"Aggressive":  {"snarling and relentless", "fists-up fury", "ferocious and abrasive", "pure adrenaline and rage", "hitting like a slammed door"},
}

// energyPhrases by band: low (< 0.35), middle, high (≥ 0.7).
var energyPhrases = [3][]string{
	{"barely above a whisper", "low-key and sparse", "hushed throughout", "little more than a murmur"},
	{"moderate in weight", "steady and never overpowering", "present but never pushy", "of middling heft"},
	{"loud and dense", "packed wall to wall", "at full throttle", "big, bold and crowded with sound"},
}

// tempoPhrases by band: below 90 BPM, below 120, and above.
var tempoPhrases = [3][]string{
	{"at a leisurely walk", "ambling along", "at the pace of a resting heartbeat", "taking its time"},
	{"at an easy stride", "at a comfortable walking pace", "neither hurried nor lazy", "at a jogging pace"},
	{"racing ahead", "at a sprint", "quick-footed", "briskly paced"},
}

var voicePhrases = map[string][]string{
	VoiceNone:   {"no singing at all: the instruments do the talking", "without a single word sung", "wordless from start to finish", "with no voice anywhere"},
	VoiceMale:   {"a man's voice carries the tune", "sung by a baritone", "a man sings out front", "led by a husky tenor"},
	VoiceFemale: {"a woman sings the melody", "sung by a soprano", "a woman leads the singing", "a warm alto up front"},
	VoiceDuet:   {"a man and a woman trade verses", "a duet of two voices, his and hers", "he sings, she answers"},
	VoiceChoir:  {"a full choir swells behind it", "massed voices in harmony", "a chorus of singers", "an ensemble of many voices"},
}

var titleWords = [2][]string{
	{"Lantern", "Copper", "Harbour", "Amber", "Willow", "Cobalt", "Marble", "Thistle", "Juniper", "Saffron", "Granite", "Meadow",
		"Ember", "Cinder", "Hollow", "Ivory", "Slate", "Heron", "Orchid", "Sparrow", "Bramble", "Tundra", "Linen", "Quarry"},
	{"Steps", "Lullaby", "Engines", "Postcards", "Weather", "Threads", "Corridors", "Rooftops", "Tides", "Embers", "Kites",
		"Bridges", "Mirrors", "Footprints", "Lanterns", "Anthem", "Waltz", "Letters Home", "Crossing", "Fields", "Refrain", "Static"},
}

var artists = []string{"Marta Oyelaran", "The Brass Foxes", "Hendrik Sol", "Wren & Moss", "Ottoline", "Cassius Vale", "Lowland Choir",
	"Pilar Ibáñez", "Tin Roof Radio", "Yusuf Okoro", "The Quiet Engines", "Beatrix Lund", "Saltmarsh", "Dario Fenn", "Kestrel Row",
	"Anouk Verbeek", "Copperline", "Idris Hale", "The Long Evenings", "Selma Haddad", "Fathom & Field", "Rufus Tamm", "Glasshouse Ensemble",
	"Noor Castell", "Paloma Reyes", "Bellwether", "Anders Kvist", "The Tall Grass", "Esme Dorado", "Harbourline"}
