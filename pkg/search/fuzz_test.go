package search

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/errs"
)

// Seed corpora: testdata/fuzz/FuzzUnderstand and testdata/fuzz/FuzzByText
// (issue 14, "must show"); `make fuzz` runs each target for a bounded time.

// FuzzUnderstand checks the query parser on any text: it never panics,
// and what it understood is bounded by the text and well-formed.
func FuzzUnderstand(f *testing.F) {
	f.Fuzz(func(t *testing.T, text string, tol float64) {
		q := Understand(text, tol)
		lower := strings.ToLower(text)
		toks := tokens(" " + lower + " ")
		words := len(toks)
		// The parser reads words split at punctuation ("lo!fi" is "lo fi").
		spaced := " " + strings.Join(toks, " ") + " "
		if len(q.Groups)+len(q.Exclude) > words {
			t.Fatalf("%d groups and %d exclusions from %d words", len(q.Groups), len(q.Exclude), words)
		}
		for _, g := range slices.Concat(q.Groups, q.Exclude) {
			if len(g) == 0 || g[0].phrase == "" || g[0].fuzzy || g[0].corrected {
				t.Fatalf("malformed group %+v", g)
			}
			// A concept is a word of the text ("lo-fi" is kept as "lo fi"),
			// or the mood cluster of a tempo word of it ("upbeat").
			w := strings.ReplaceAll(g[0].phrase, " ", "-")
			if !strings.Contains(lower, w) && !strings.Contains(lower, g[0].phrase) &&
				!strings.Contains(spaced, " "+g[0].phrase+" ") && !tempoCluster(lower, g) {
				t.Fatalf("group %+v is not from %q", g, text)
			}
		}
		if r := q.Tempo; r != nil && !(r.Lo <= r.Hi && !math.IsNaN(r.Lo) && !math.IsNaN(r.Hi)) {
			t.Fatalf("tempo range %+v", *r)
		}
		if r := q.Duration; r != nil && !(r.Lo >= 0 && r.Lo <= r.Hi) {
			t.Fatalf("duration range %+v", *r)
		}
		switch q.Vocals {
		case "", vocalsAny, catalog.VocalsInstrumental, catalog.VocalsMale, catalog.VocalsFemale, catalog.VocalsMixed:
		default:
			t.Fatalf("vocals %q", q.Vocals)
		}
		if q.NoVocals && q.Vocals != catalog.VocalsInstrumental {
			t.Fatalf("no vocals but vocals %q", q.Vocals)
		}
		if again := Understand(text, tol); !equalQueries(q, again) {
			t.Fatalf("not deterministic: %+v then %+v", q, again)
		}
	})
}

func tempoCluster(lower string, g group) bool {
	for _, w := range tokens(" " + lower + " ") {
		if c := clusters[w]; c != nil && tempoWords[w] != (Range{}) && slices.Equal(g, group(c)) {
			return true
		}
	}
	return false
}

func equalQueries(a, b Query) bool {
	eqRange := func(x, y *Range) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	eqGroups := func(x, y []group) bool {
		return slices.EqualFunc(x, y, func(g, h group) bool { return slices.Equal(g, h) })
	}
	return eqGroups(a.Groups, b.Groups) && eqGroups(a.Exclude, b.Exclude) && eqRange(a.Tempo, b.Tempo) &&
		eqRange(a.Duration, b.Duration) && a.Vocals == b.Vocals && a.NoVocals == b.NoVocals && a.Generic == b.Generic
}

// FuzzByText runs whole text searches over the demo catalog: any text is
// answered or refused as invalid input (a 400), never an internal error
// (a client told to retry a 500 retries forever, issue 14 item 10), and
// the page is bounded.
func FuzzByText(f *testing.F) {
	ix := demoIndex(f, 240)
	f.Fuzz(func(t *testing.T, text string, limit int) {
		limit = 1 + abs(limit)%MaxLimit
		res, err := ix.ByText(t.Context(), text, Options{Limit: limit})
		if err != nil {
			if !errs.Is(err, errs.Invalid) {
				t.Fatalf("%.80q (%d bytes): %v (kind %v), want a result or invalid input", text, len(text), err, errs.KindOf(err))
			}
			if strings.TrimSpace(text) != "" && utf8.ValidString(text) && !strings.ContainsRune(text, 0) &&
				utf8.RuneCountInString(text) <= MaxTextLength {
				t.Fatalf("%.80q refused: %v", text, err)
			}
			return
		}
		if len(res.Hits) > limit || res.Total > len(ix.tracks) || len(res.Hits) > res.Total {
			t.Fatalf("%d hits of %d (limit %d, catalog %d)", len(res.Hits), res.Total, limit, len(ix.tracks))
		}
		for i, h := range res.Hits {
			if h.Track == nil || math.IsNaN(h.Score) || math.IsInf(h.Score, 0) {
				t.Fatalf("hit %d: %+v", i, h)
			}
			if i > 0 && h.Score > res.Hits[i-1].Score {
				t.Fatalf("hits out of order at %d: %v > %v", i, h.Score, res.Hits[i-1].Score)
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n == math.MinInt {
			return 0
		}
		return -n
	}
	return n
}
