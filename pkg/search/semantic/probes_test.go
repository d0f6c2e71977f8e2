package semantic

import (
	"bufio"
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
// round 3 and measured on the judged and tuning sets, not kept (README,
// Search, "Lexicon round 3").
const (
	rCelebrations = "celebrations, holidays and life events written in lexicon round 3, measured and not kept (family milestones: sum of the six sets -0.0033; religious and cultural holidays: -0.0040; national days, Christmas, Halloween: -0.0006)"
	rVoices       = "voices, ensembles and instruments in lay words written in lexicon round 3, measured and not kept (sum -0.0011, tuning4 -0.0017)"
)

// knownProbeMisses are probes that stay read wrong, with the reason; the
// test reports them and fails if one starts to pass (so the list stays
// honest).
var knownProbeMisses = map[string]string{
	"gender reveal party":                    rCelebrations,
	"first birthday party":                   rCelebrations,
	"jewish wedding hora":                    rCelebrations,
	"funeral procession":                     rCelebrations,
	"moving into our first house":            rCelebrations,
	"soldier comes home surprise":            rCelebrations,
	"japanese tea ceremony":                  rCelebrations,
	"vow renewal on the beach":               rCelebrations,
	"christmas eve by the fire":              rCelebrations,
	"trick or treating":                      rCelebrations,
	"easter sunday service":                  rCelebrations,
	"easter egg hunt":                        rCelebrations,
	"ramadan iftar":                          rCelebrations,
	"dragon dance":                           rCelebrations,
	"oktoberfest beer tent":                  rCelebrations,
	"independence day parade":                rCelebrations,
	"father's day tribute":                   rCelebrations,
	"day of the dead":                        rCelebrations,
	"burning man":                            rCelebrations,
	"songkran water fight":                   rCelebrations,
	"swedish midsummer":                      rCelebrations,
	"harvest festival":                       rCelebrations,
	"remembrance sunday":                     rCelebrations,
	"memorial day parade":                    rCelebrations,
	"pride parade":                           rCelebrations,
	"earth day campaign":                     rCelebrations,
	"gospel choir":                           rVoices,
	"kids choir":                             rVoices,
	"boy band":                               rVoices,
	"girl group":                             rVoices,
	"humming":                                rVoices,
	"taiko drums":                            rVoices,
	"female rapper":                          rVoices,
	"brass fanfare":                          rVoices,
	"xylophone":                              rVoices,
	"accordion":                              rVoices,
	"theremin":                               rVoices,
	"koto":                                   rVoices,
	"foggy morning":                          "weather and seasons written in lexicon round 3, measured and not kept (tuning5 -0.0035, sum of the six sets -0.0021)",
	"blue hour over the city":                "weather and seasons written in lexicon round 3, measured and not kept (tuning5 -0.0035, sum of the six sets -0.0021)",
	"rainy day in the city":                  "weather and seasons written in lexicon round 3, measured and not kept (tuning5 -0.0035, sum of the six sets -0.0021)",
	"late summer evening":                    "weather and seasons written in lexicon round 3, measured and not kept (tuning5 -0.0035, sum of the six sets -0.0021)",
	"cold grey morning":                      "weather and seasons written in lexicon round 3, measured and not kept (tuning5 -0.0035, sum of the six sets -0.0021)",
	"spring is here":                         "weather and seasons written in lexicon round 3, measured and not kept (tuning5 -0.0035, sum of the six sets -0.0021)",
	"new york rush hour":                     "commutes, workplaces and the Celtic countries written in lexicon round 3, measured and not kept (sum -0.0004)",
	"road rage":                              "commutes, workplaces and the Celtic countries written in lexicon round 3, measured and not kept (sum -0.0004)",
	"irish countryside":                      "commutes, workplaces and the Celtic countries written in lexicon round 3, measured and not kept (sum -0.0004)",
	"coworking space":                        "commutes, workplaces and the Celtic countries written in lexicon round 3, measured and not kept (sum -0.0004)",
	"heart of gold":                          "everyday feeling phrases written in lexicon round 3, measured and not kept (tuning4 -0.0028, sum -0.0029)",
	"overwhelmed with joy":                   "everyday feeling phrases written in lexicon round 3, measured and not kept (tuning4 -0.0028, sum -0.0029)",
	"feeling invincible":                     "everyday feeling phrases written in lexicon round 3, measured and not kept (tuning4 -0.0028, sum -0.0029)",
	"existential crisis":                     "everyday feeling phrases written in lexicon round 3, measured and not kept (tuning4 -0.0028, sum -0.0029)",
	"feeling lost":                           "everyday feeling phrases written in lexicon round 3, measured and not kept (tuning4 -0.0028, sum -0.0029)",
	"cozy and content":                       "everyday feeling phrases written in lexicon round 3, measured and not kept (tuning4 -0.0028, sum -0.0029)",
	"a weight off my shoulders":              "everyday feeling phrases written in lexicon round 3, measured and not kept (tuning4 -0.0028, sum -0.0029)",
	"triumph over adversity":                 "everyday feeling phrases written in lexicon round 3, measured and not kept (tuning4 -0.0028, sum -0.0029)",
	"smartphone review":                      "product, platform and campaign verticals written in lexicon round 3, measured and not kept (sum -0.0001)",
	"saas explainer video":                   "product, platform and campaign verticals written in lexicon round 3, measured and not kept (sum -0.0001)",
	"streetwear drop":                        "product, platform and campaign verticals written in lexicon round 3, measured and not kept (sum -0.0001)",
	"crowdfunding campaign video":            "product, platform and campaign verticals written in lexicon round 3, measured and not kept (sum -0.0001)",
	"fast food commercial":                   "product, platform and campaign verticals written in lexicon round 3, measured and not kept (sum -0.0001)",
	"surprise 50th birthday":                 rCelebrations,
	"the hero walks away from the explosion": "\"walks away\" reads calm; no category written for it",
	"tennis match point":                     "\"tennis match\" (a WordNet phrase) is read before \"match point\" (tense)",
	"slow build to a big drop":               "round 3's \"slow build\" (a cinematic build) outweighs the drop; an EDM build-up needs the pair read together",
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
func probeMiss(e *Embedder, p probe, ranked []string) string {
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
		for _, g := range p.want {
			for _, a := range g {
				if !slices.Contains(e.Anchors(), a) {
					t.Fatalf("probes.txt:%d: no anchor %q", p.lineNumber, a)
				}
			}
		}
		for _, a := range p.forbid {
			if !slices.Contains(e.Anchors(), a) {
				t.Fatalf("probes.txt:%d: no anchor %q", p.lineNumber, a)
			}
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
			miss = probeMiss(e, p, ranked)
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
