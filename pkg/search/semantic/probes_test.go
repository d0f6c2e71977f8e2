package semantic

import (
	"bufio"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Probe positions: a wanted anchor must be among a probe's probeTop
// strongest anchors, a forbidden one not among its probeForbidTop.
const (
	probeTop       = 5
	probeForbidTop = 3
)

// Reasons of the known misses: categories written for them in lexicon
// round 3 and not kept (README, Search, "Lexicon round 3"); figures are
// each category's own change to the six judged/tuning sets' mean nDCG@10,
// measured alone on the round-3 lexicon (round 3b), against its rule:
// the sum not below -0.003, no set below -0.005.
const (
	rFamily   = "family milestones (birthdays, showers, homecomings, funerals, tea ceremonies) written in lexicon round 3: alone sum of the six sets -0.0019 (passes round 3b's rule), but with round 3b's other passing categories the sum was -0.0037 and it was the weakest, so dropped"
	rHolidays = "religious and cultural holidays and festivals written in lexicon round 3, measured and not kept (round 3b: sum of the six sets -0.0045, tuning4 -0.0024)"
	rWeather  = "weather and seasons written in lexicon round 3, measured and not kept (round 3b: sum of the six sets -0.0032, tuning5 -0.0033)"
	rFeelings = "everyday feeling phrases written in lexicon round 3, measured and not kept (round 3b: sum of the six sets -0.0054, tuning4 -0.0041)"
	rReview   = "the code review of lexicon rounds 3/3b removed keys that misread ordinary requests (README, Search, \"Round 3b\")"
)

// knownProbeMisses are probes that stay read wrong, with the reason; the
// test reports them and fails if one starts to pass or names no probe
// (so the list stays honest).
var knownProbeMisses = map[string]string{
	"gender reveal party":                    rFamily,
	"first birthday party":                   rFamily,
	"jewish wedding hora":                    rHolidays,
	"funeral procession":                     rFamily,
	"moving into our first house":            rFamily,
	"soldier comes home surprise":            rFamily,
	"japanese tea ceremony":                  rFamily,
	"vow renewal on the beach":               rFamily,
	"easter sunday service":                  rHolidays,
	"easter egg hunt":                        rFamily,
	"ramadan iftar":                          rHolidays,
	"dragon dance":                           rHolidays,
	"oktoberfest beer tent":                  rHolidays,
	"father's day tribute":                   rFamily,
	"day of the dead":                        rHolidays,
	"burning man":                            rHolidays,
	"songkran water fight":                   rHolidays,
	"swedish midsummer":                      rHolidays,
	"harvest festival":                       rHolidays,
	"pride parade":                           rHolidays,
	"earth day campaign":                     rHolidays,
	"foggy morning":                          rWeather,
	"blue hour over the city":                rWeather,
	"rainy day in the city":                  rWeather,
	"late summer evening":                    rWeather,
	"cold grey morning":                      rWeather,
	"spring is here":                         rWeather,
	"heart of gold":                          rFeelings,
	"overwhelmed with joy":                   rFeelings,
	"feeling invincible":                     rFeelings,
	"existential crisis":                     rFeelings,
	"feeling lost":                           rFeelings,
	"cozy and content":                       rFeelings,
	"a weight off my shoulders":              rFeelings,
	"triumph over adversity":                 rFeelings,
	"surprise 50th birthday":                 "misses even with the family-milestone lines written in (\"surprise\" reads tense and the birthday gives neither party nor happy); not investigated",
	"the hero walks away from the explosion": "\"walks away\" reads calm; no category written for it",
	"tennis match point":                     "\"tennis match\" (a WordNet phrase) is read before \"match point\" (tense)",
	"slow build to a big drop":               "round 3's \"slow build\" (a cinematic build) outweighs the drop; an EDM build-up needs the pair read together",
	"the killer is inside the house":         rReview + ": \"inside the house\" (\"relaxing music inside the house\" read horror); \"killer in the house\" does not match \"killer is inside\"",
}

type probe struct {
	text       string
	want       [][]string // each group: any of its anchors
	forbid     []string
	lineNumber int
}

func readProbes(t *testing.T) []probe {
	t.Helper()
	f, err := os.Open("testdata/probes.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ps []probe
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "|")
		if len(parts) < 2 || len(parts) > 3 {
			t.Fatalf("probes.txt:%d: want \"phrase | wanted | forbidden\"", n)
		}
		p := probe{text: strings.TrimSpace(parts[0]), lineNumber: n}
		if len(strings.Fields(parts[1])) == 0 {
			t.Fatalf("probes.txt:%d: %q wants no anchor", n, p.text)
		}
		for _, g := range strings.Fields(parts[1]) {
			p.want = append(p.want, strings.Split(g, "/"))
		}
		if len(parts) == 3 {
			p.forbid = strings.Fields(parts[2])
		}
		ps = append(ps, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ps
}

// rankedAnchors returns the anchors of v with a positive weight,
// strongest first.
func rankedAnchors(e *Embedder, v []float32) []string {
	idx := make([]int, 0, len(v))
	for i, x := range v {
		if x > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] > v[idx[b]] })
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = e.Anchors()[i]
	}
	return out
}

// probeMiss says what is wrong with the reading of p, or "".
func probeMiss(p probe, ranked []string) string {
	var why []string
	topN := ranked[:min(probeTop, len(ranked))]
	for _, g := range p.want {
		if !slices.ContainsFunc(g, func(a string) bool { return slices.Contains(topN, a) }) {
			why = append(why, "wants "+strings.Join(g, "/"))
		}
	}
	topF := ranked[:min(probeForbidTop, len(ranked))]
	for _, a := range p.forbid {
		if slices.Contains(topF, a) {
			why = append(why, "forbids "+a)
		}
	}
	return strings.Join(why, ", ")
}

// TestSituationProbes: situation phrases written from how production
// music libraries tag use cases (testdata/probes.txt, independent of the
// judged and tuning sets) lead with the anchors a music supervisor would
// pick, read as by-text reads a request (EmbedQuery).
func TestSituationProbes(t *testing.T) {
	e := defaultEmbedder(t)
	ps := readProbes(t)
	for _, p := range ps {
		for _, a := range slices.Concat(slices.Concat(p.want...), p.forbid) {
			if !slices.Contains(e.Anchors(), a) {
				t.Fatalf("probes.txt:%d: no anchor %q", p.lineNumber, a)
			}
		}
	}
	texts := map[string]bool{}
	for _, p := range ps {
		texts[p.text] = true
	}
	for _, k := range slices.Sorted(maps.Keys(knownProbeMisses)) {
		if !texts[k] {
			t.Errorf("knownProbeMisses: %q is no probe in probes.txt", k)
		}
	}
	pass, known := 0, 0
	for _, p := range ps {
		v, err := e.EmbedQuery(t.Context(), p.text)
		if err != nil {
			t.Fatal(err)
		}
		ranked := rankedAnchors(e, v)
		miss := "nothing known"
		if v != nil {
			miss = probeMiss(p, ranked)
		}
		reason, isKnown := knownProbeMisses[p.text]
		switch {
		case miss == "" && isKnown:
			t.Errorf("%q passes now; drop it from knownProbeMisses", p.text)
		case miss == "":
			pass++
		case isKnown:
			known++
			t.Logf("known miss %q (%s): %s; top %v", p.text, reason, miss, ranked[:min(8, len(ranked))])
		default:
			t.Errorf("%q: %s; top %v", p.text, miss, ranked[:min(8, len(ranked))])
		}
	}
	t.Logf("%d of %d probes pass, %d known misses", pass, len(ps), known)
}
