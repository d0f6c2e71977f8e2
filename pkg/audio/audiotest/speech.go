package audiotest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/dsp"
)

// Narration by espeak-ng (formant synthesis): a stand-in for a voice with
// real syllable rhythm, pauses between phrases and a gliding pitch, which is
// what background music under a vlog or documentary has to survive. The
// speech benchmarks and tests use it; it needs the espeak-ng binary.

// ErrNoEspeak is returned when espeak-ng is not installed.
var ErrNoEspeak = errors.New("espeak-ng not found (install the espeak-ng package)")

// TB is the part of testing.TB RequireEspeak uses (this package is not
// only for tests, so it does not import testing).
type TB interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// RequireEspeak skips the test or benchmark when espeak-ng is missing, and
// fails it under CI=true, where CI installs it.
func RequireEspeak(tb TB) {
	tb.Helper()
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%v", ErrNoEspeak)
		}
		tb.Skipf("%v", ErrNoEspeak)
	}
}

// Speak renders text with an espeak-ng voice at wpm words a minute,
// resampled to rate.
func Speak(ctx context.Context, voice, text string, wpm, rate int) (audio.PCM, error) {
	bin, err := exec.LookPath("espeak-ng")
	if err != nil {
		return audio.PCM{}, ErrNoEspeak
	}
	dir, err := os.MkdirTemp("", "espeak")
	if err != nil {
		return audio.PCM{}, err
	}
	defer os.RemoveAll(dir)
	wav := filepath.Join(dir, "s.wav")
	cmd := exec.CommandContext(ctx, bin, "-v", voice, "-s", strconv.Itoa(wpm), "-w", wav, text)
	if out, err := cmd.CombinedOutput(); err != nil {
		return audio.PCM{}, fmt.Errorf("espeak-ng -v %s: %v %s", voice, err, out)
	}
	f, err := os.Open(wav)
	if err != nil {
		return audio.PCM{}, err
	}
	defer f.Close()
	p, err := decode.ReadWAV(f)
	if err != nil {
		return audio.PCM{}, err
	}
	if p.Rate != rate {
		p = dsp.Resample(p, rate)
	}
	return p, nil
}

// Narration is seconds of continuous speech by voice: sentences of
// Sentences in an order drawn from seed, at a speaking rate of 150–185 words
// a minute (also drawn from seed), with espeak's own pauses at punctuation.
func Narration(ctx context.Context, voice string, seconds float64, seed uint64, rate int) (audio.PCM, error) {
	r := rand.New(rand.NewPCG(seed, 0x5eec))
	wpm := 150 + r.IntN(36)
	var parts []audio.PCM
	have := 0.0
	for have < seconds {
		order := r.Perm(len(Sentences))
		var text strings.Builder
		words := 0
		for _, i := range order {
			text.WriteString(Sentences[i])
			text.WriteString(" ")
			words += strings.Count(Sentences[i], " ") + 1
			if float64(words)/float64(wpm)*60 > 1.2*(seconds-have) {
				break
			}
		}
		p, err := Speak(ctx, voice, text.String(), wpm, rate)
		if err != nil {
			return audio.PCM{}, err
		}
		if p.Seconds() < 0.5 {
			return audio.PCM{}, fmt.Errorf("espeak-ng -v %s spoke nothing", voice)
		}
		parts = append(parts, p)
		have += p.Seconds()
	}
	return Concat(parts...).Window(0, seconds), nil
}

// SpeechBabble is multi-talker babble: talkers narrations by different voices
// (from voices, in turn) at equal loudness, summed and scaled to rms.
func SpeechBabble(ctx context.Context, voices []string, talkers int, seconds, rms float64, seed uint64, rate int) (audio.PCM, error) {
	out := Silence(rate, seconds)
	for t := range talkers {
		p, err := Narration(ctx, voices[t%len(voices)], seconds, seed*131+uint64(t), rate)
		if err != nil {
			return audio.PCM{}, err
		}
		if v := p.RMS(); v > 0 {
			Scale(p, 1/v)
		}
		for i := range min(len(out.Samples), len(p.Samples)) {
			out.Samples[i] += p.Samples[i]
		}
	}
	if v := out.RMS(); v > 0 {
		Scale(out, rms/v)
	}
	return out, nil
}

// Sentences are the narration's text: vlog, documentary, tutorial, review
// and advertising registers, long and short, with numbers and names.
var Sentences = []string{
	"Welcome back to the channel, and thanks for all the comments on last week's video.",
	"Today we are hiking up to the old lighthouse on the northern cape.",
	"The trail starts behind the harbour, climbs through the pine forest, and then follows the cliffs for about three kilometres.",
	"Watch your footing here, the rocks are still wet from last night's rain.",
	"In the spring of eighteen seventy two, the first settlers arrived in the valley.",
	"They built their houses from the stone of the river bed, and within a decade the village had a school, a mill and a small church.",
	"Much of what you see today dates from that time.",
	"Okay, so the first thing you want to do is preheat the oven to two hundred degrees.",
	"While that warms up, take a large bowl and mix the flour, the salt and the yeast.",
	"Then add the water slowly, a little at a time, and keep stirring until the dough comes together.",
	"The results of the survey were surprising.",
	"Almost two thirds of the people we asked said they would rather take the train than fly, even if the journey took twice as long.",
	"The reasons they gave were comfort, the view, and the feeling of actually travelling.",
	"If you enjoyed this, please hit the subscribe button, it really helps the channel grow.",
	"Now, I know what you're thinking: isn't this just a more expensive version of the old model?",
	"Not quite. The battery lasts almost twice as long, and the screen is noticeably brighter outdoors.",
	"Let's open the settings menu and turn on the developer options.",
	"You'll find them under system, then about, and you tap the build number seven times.",
	"By the end of the war, the city had lost nearly half of its population.",
	"Historians still argue about why the bridge was never rebuilt.",
	"Here at the market, the stalls open at six in the morning and close by noon.",
	"The fishermen bring in their catch just after sunrise, and the best pieces are gone within the hour.",
	"This is where things get interesting.",
	"Our guide, Maria, has been leading tours in these mountains for over twenty years.",
	"She tells us the glacier has retreated almost a kilometre since she first came here.",
	"For this step you need a small screwdriver and a bit of patience.",
	"Remove the four screws on the back panel and gently lift the cover.",
	"Be careful with the ribbon cable, it tears easily.",
	"So that's it for today. Let me know in the comments what you'd like to see next.",
	"Introducing the all new Horizon, designed for the way you live and work.",
	"Available now at selected stores, while stocks last.",
	"The octopus can change the colour and texture of its skin in a fraction of a second.",
	"Scientists believe this helps it hide from predators and surprise its prey.",
	"After three days on the road we finally reached the coast.",
	"Honestly, the view from up here makes every step of that climb worth it.",
	"The recipe calls for fresh basil, but dried works fine if that's all you have.",
	"On the left you can see the cathedral, which took more than two centuries to complete.",
	"What most people don't realise is that the whole building rests on wooden piles.",
	"We tested each pair of headphones for a full week of daily use.",
	"The cheaper ones held up surprisingly well, although the ear cushions wore out quickly.",
}
