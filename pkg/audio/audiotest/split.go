package audiotest

// The held-out discipline of the recognition benchmarks (issue 16): the songs
// and the voices are split into a tuning half and a held-out half before any
// tuning, and every figure is reported for both halves. Tuning may look only
// at the tuning half.

// TuningHalf reports whether the i-th item of a benchmark set (songs in name
// order, Voices in their order) belongs to the tuning half; the others are
// held out.
func TuningHalf(i int) bool { return i%2 == 0 }

// Half names the half of the i-th item: "tuning" or "held-out".
func Half(i int) string {
	if TuningHalf(i) {
		return "tuning"
	}
	return "held-out"
}

// Voices are the espeak-ng voices (language+variant, `espeak-ng -v`) that
// speak the narration and babble of the speech benchmarks, in a fixed order:
// British, American, Scottish, Caribbean and regional English accents, male
// and female variants. All come with Debian's espeak-ng package.
var Voices = []string{
	"en-gb+m1", "en-us+f2", "en-gb-scotland+m3", "en-029+f4", "en-gb-x-rp+m5",
	"en-us-nyc+f1", "en-gb-x-gbclan+m7", "en-gb-x-gbcwmd+f3", "en-us+m4", "en-gb+f5",
}
