package heldout

import "slices"

// A scene is a situation a track fits: when it fits is a rule over the
// track's other latent attributes (so the scenes agree with how it sounds),
// and how a description mentions it is one of its phrases. A description
// names at most two of a track's scenes; the judgments use all of them.
type scene struct {
	id      string
	fits    func(l *Latent) bool
	phrases []string
}

func (l *Latent) mood(ms ...string) bool {
	for _, m := range l.Moods {
		if slices.Contains(ms, m) {
			return true
		}
	}
	return false
}
func (l *Latent) sub(names ...string) bool   { return slices.Contains(names, l.Subgenre) }
func (l *Latent) genre(names ...string) bool { return slices.Contains(names, l.Genre) }
func (l *Latent) voice(vs ...string) bool    { return slices.Contains(vs, l.Voice) }
func (l *Latent) sung() bool                 { return l.Voice != VoiceNone }
func (l *Latent) plays(names ...string) bool {
	for _, n := range names {
		if slices.Contains(l.Instruments, n) {
			return true
		}
	}
	return false
}

var gloomy = []string{"Dark", "Tense", "Aggressive", "Sad"}

var scenes = []scene{
	{"bedtime", func(l *Latent) bool {
		return l.Energy <= 0.3 && l.BPM < 90 && l.mood("Calm", "Peaceful", "Dreamy") && !l.mood(gloomy...) && l.voice(VoiceNone, VoiceFemale)
	}, []string{"for the last light before the eyes close", "to settle a restless child at night", "for lights-out"}},
	{"romantic-evening", func(l *Latent) bool { return l.mood("Romantic") && l.Energy <= 0.6 },
		[]string{"for a candlelit table for two", "for swaying together in the kitchen", "for an anniversary dinner"}},
	{"action", func(l *Latent) bool {
		return l.mood("Epic", "Aggressive", "Tense", "Energetic") && l.Energy >= 0.75 && l.BPM >= 110 && l.genre("Cinematic", "Rock", "Electronic", "Hip Hop")
	}, []string{"for car chases and rooftop pursuits", "for explosions and fistfights on screen", "for a getaway at full speed"}},
	{"wedding", func(l *Latent) bool {
		return l.sub("Choral", "Chamber", "Nocturne", "Piano Ballad", "Soul", "Campfire Folk") &&
			l.mood("Romantic", "Hopeful", "Happy", "Peaceful", "Uplifting") && !l.mood("Sad")
	}, []string{"for walking down the aisle", "for the exchange of vows", "for the first dance of newlyweds"}},
	{"memorial", func(l *Latent) bool {
		return l.mood("Sad", "Melancholic", "Peaceful") && l.Energy <= 0.4 &&
			l.sub("Choral", "Chamber", "Nocturne", "Piano Ballad", "Campfire Folk", "Nature Score")
	}, []string{"for saying farewell to a loved one", "for a memorial service", "for remembering someone who is gone"}},
	{"workout", func(l *Latent) bool {
		return l.Energy >= 0.7 && l.BPM >= 115 && l.mood("Energetic", "Aggressive", "Uplifting", "Happy")
	}, []string{"for the treadmill and the weight room", "for burning through a training session", "for the last mile of a run"}},
	{"reading", func(l *Latent) bool {
		return l.Energy <= 0.4 && l.mood("Calm", "Melancholic", "Dreamy", "Peaceful") && !l.mood("Dark", "Tense") && l.Voice == VoiceNone
	}, []string{"for a grey afternoon with a book and tea", "for rain on the window and a novel", "for a quiet armchair hour"}},
	{"focus", func(l *Latent) bool {
		return l.Energy <= 0.5 && l.Voice == VoiceNone && l.genre("Electronic", "Hip Hop", "Ambient", "Classical", "Corporate") &&
			!l.mood("Tense", "Dark", "Aggressive", "Sad")
	}, []string{"for long hours at the desk", "to keep the mind on the page", "for deep work without distraction"}},
	{"dinner-party", func(l *Latent) bool {
		return l.sub("Lounge", "Latin Jazz", "Bebop", "Soul", "Deep House", "Chamber") && l.Energy >= 0.25 && l.Energy <= 0.75 && !l.mood(gloomy...)
	}, []string{"for guests around the table", "for clinking glasses and conversation", "for hosting friends at home"}},
	{"kids-party", func(l *Latent) bool {
		return l.mood("Playful", "Happy") && l.Energy >= 0.55 && l.genre("Pop", "Folk", "Jazz", "Corporate") && !l.mood(gloomy...)
	}, []string{"for a birthday full of balloons", "for little ones dancing", "for games at a children's party"}},
	{"nature-documentary", func(l *Latent) bool {
		return (l.sub("Nature Score", "Nature Soundscape", "Chillout") && !l.mood("Aggressive")) ||
			(l.sub("Fantasy") && l.mood("Hopeful", "Dreamy"))
	}, []string{"for footage of forests, oceans and wildlife", "for sweeping aerial shots of wild places", "for a film about animals and their habitats"}},
	{"corporate", func(l *Latent) bool { return l.genre("Corporate") && !l.mood("Dark", "Tense") },
		[]string{"for a keynote slide deck", "for a company's quarterly update", "for onboarding videos and product demos"}},
	{"horror", func(l *Latent) bool {
		return l.mood("Tense", "Dark", "Mysterious") && (l.sub("Horror", "Space") || (l.genre("Cinematic") && l.mood("Dark", "Tense")))
	}, []string{"for the creak of a door in an empty house", "for a trailer that keeps audiences awake", "for something moving in the basement"}},
	{"road-trip", func(l *Latent) bool {
		return l.sub("Alternative", "Americana", "Electropop", "Garage Punk", "Celtic") && l.mood("Happy", "Hopeful", "Energetic", "Uplifting") && l.BPM >= 95
	}, []string{"for the open highway with the windows down", "for miles of open road", "for a summer drive with friends"}},
	{"club", func(l *Latent) bool {
		return l.sub("Deep House", "Electro", "Breakbeat", "Drill", "Electropop") && l.Energy >= 0.6
	},
		[]string{"for a packed floor at 2am", "for strobe lights and a sweaty crowd", "for the peak of the night out"}},
	{"meditation", func(l *Latent) bool {
		return l.sub("Sleep", "Nature Soundscape", "Chillout", "Space", "Nocturne") && l.mood("Peaceful", "Calm") && l.Energy <= 0.35 && !l.mood("Dark")
	}, []string{"for the yoga mat", "for breathing exercises and stretching", "for sitting still with eyes closed"}},
	{"morning", func(l *Latent) bool {
		return l.Energy >= 0.25 && l.Energy <= 0.65 && l.mood("Happy", "Hopeful", "Calm", "Playful") && !l.mood(gloomy...) &&
			l.sub("Latin Jazz", "Lounge", "Campfire Folk", "Chillhop", "Americana", "Jazz Rap", "Chillout", "Tech Explainer")
	}, []string{"for the first cup of the day", "for a lingering breakfast", "for a sunlit kitchen on Sunday"}},
	{"sports", func(l *Latent) bool {
		return l.Energy >= 0.8 && l.mood("Energetic", "Epic", "Aggressive", "Uplifting") && l.genre("Rock", "Hip Hop", "Electronic", "Cinematic")
	}, []string{"for goals replayed frame by frame", "for the highlight reel", "for the team running out of the tunnel"}},
	{"fashion", func(l *Latent) bool {
		return l.sub("Deep House", "Electro", "Electropop", "Drill") && l.mood("Dark", "Energetic", "Dreamy", "Happy")
	}, []string{"for the catwalk", "for a runway show", "for a lookbook shoot"}},
	{"boss-fight", func(l *Latent) bool {
		return l.mood("Epic", "Aggressive", "Tense") && l.Energy >= 0.8 && l.sub("Action Score", "Metal", "Electro", "Breakbeat", "Fantasy")
	}, []string{"for the final battle in a game", "for a showdown with the last enemy", "for the level where everything goes wrong"}},
	{"space", func(l *Latent) bool {
		return l.sub("Space", "Electro", "Chillout") && l.mood("Mysterious", "Dreamy", "Dark", "Tense")
	}, []string{"for drifting between stars", "for the bridge of a starship", "for a probe leaving the solar system"}},
	{"heist", func(l *Latent) bool {
		return l.mood("Tense", "Dark", "Mysterious") && l.sub("Drill", "Electro", "Jazz Rap", "Bebop", "Horror", "Lounge")
	}, []string{"for a safecracking sequence", "for detectives closing in", "for a crew planning the big job"}},
	{"sacred", func(l *Latent) bool {
		return l.sub("Choral") || (l.sub("Soul") && l.Voice == VoiceChoir) || (l.plays("pipe organ", "hammond organ") && l.mood("Peaceful", "Hopeful", "Epic"))
	}, []string{"for a cathedral service", "for candles and stained glass", "for a moment of prayer"}},
	{"celebration", func(l *Latent) bool {
		return l.mood("Uplifting", "Happy", "Epic", "Hopeful") && l.Energy >= 0.55 && l.genre("Pop", "Corporate", "Cinematic", "Folk") && !l.mood("Dark", "Tense", "Aggressive")
	}, []string{"for tossing caps in the air", "for a victory lap with friends", "for the toast at a big milestone"}},
	{"heartbreak", func(l *Latent) bool { return l.mood("Sad", "Melancholic") && l.sung() },
		[]string{"for a breakup scene", "for the last phone call", "for staring at an old text message"}},
	{"fantasy", func(l *Latent) bool {
		return l.sub("Fantasy", "Celtic", "Action Score") && l.mood("Epic", "Hopeful", "Mysterious", "Playful", "Happy", "Dreamy")
	}, []string{"for dragons, castles and quests", "for a map of an imagined kingdom", "for a wizard's journey"}},
	{"beach-sunset", func(l *Latent) bool {
		return l.sub("Latin Jazz", "Chillout", "Deep House", "Lounge") && l.mood("Calm", "Dreamy", "Romantic", "Happy")
	}, []string{"for the sun sinking into the sea", "for barefoot evenings on the sand", "for cocktails as the sky turns orange"}},
	{"cooking", func(l *Latent) bool {
		return l.mood("Playful", "Happy") && l.sub("Bebop", "Latin Jazz", "Celtic", "Tech Explainer", "Kids Pop", "Jazz Rap", "Americana")
	}, []string{"for chopping vegetables on camera", "for a kitchen show", "for a recipe video"}},
}

// sceneIDs are the ids of every scene, for validating judging rules.
func sceneIDs() []string {
	out := make([]string, len(scenes))
	for i, s := range scenes {
		out[i] = s.id
	}
	return out
}
