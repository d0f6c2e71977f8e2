package recognition_test

import (
	"encoding/json"
	"testing"

	"musiccatalog/pkg/recognition"
)

func ptr[T any](v T) *T { return &v }

func TestSegmentJSON(t *testing.T) {
	cases := []struct {
		name string
		seg  recognition.Segment
		want string
	}{
		{"cleared catalog match", recognition.Segment{
			Identified: true, StartMs: 1000, EndMs: 31000, ID: ptr("8e0d6c8a-7d3c-4f6a-9a57-0c1d2e3f4a5b"),
			Title: ptr("Knolls"), Artist: ptr("Frank"), Cleared: ptr(true), Internal: ptr(true), ISRC: ptr("GBAYE0000001"),
			Score: ptr(0.93), Cover: &recognition.Cover{URL: "https://img/c.jpg"},
		}, `{"identified":true,"start_ms":1000,"end_ms":31000,"id":"8e0d6c8a-7d3c-4f6a-9a57-0c1d2e3f4a5b","title":"Knolls","artist":"Frank","cleared":true,"internal":true,"isrc":"GBAYE0000001","score":0.93,"external_label":null,"cover":{"url":"https://img/c.jpg"}}`},
		{"outside match", recognition.Segment{
			Identified: true, StartMs: 0, EndMs: 12000, Title: ptr("Song"), Artist: ptr("Band"), Cleared: ptr(false),
			Internal: ptr(false), ISRC: ptr("USX9"), ExternalLabel: ptr("Epidemic Sound"),
			Suggestions: []recognition.Suggestion{{ID: "s1", Name: "Alt", Artist: recognition.SuggestionArtist{Name: "A", Slug: "a", Path: "/artists/a/"}}},
		}, `{"identified":true,"start_ms":0,"end_ms":12000,"id":null,"title":"Song","artist":"Band","cleared":false,"internal":false,"isrc":"USX9","score":null,"external_label":"Epidemic Sound","cover":null,"suggestions":[{"id":"s1","name":"Alt","artist":{"name":"A","slug":"a","path":"/artists/a/"}}]}`},
		{"not cleared without alternatives", recognition.Segment{
			Identified: true, StartMs: 5, EndMs: 9000, Cleared: ptr(false), Internal: ptr(false), Title: ptr("S"),
		}, `{"identified":true,"start_ms":5,"end_ms":9000,"id":null,"title":"S","artist":null,"cleared":false,"internal":false,"isrc":null,"score":null,"external_label":null,"cover":null,"suggestions":[]}`},
		{"catalog match played faster", recognition.Segment{
			Identified: true, StartMs: 0, EndMs: 9000, Title: ptr("T"), Cleared: ptr(true), Internal: ptr(true),
			Speed: ptr(1.05), PitchSemitones: ptr(0.8),
		}, `{"identified":true,"start_ms":0,"end_ms":9000,"id":null,"title":"T","artist":null,"cleared":true,"internal":true,"isrc":null,"score":null,"external_label":null,"cover":null,"speed":1.05,"pitch_semitones":0.8}`},
		{"catalog match pitch-shifted", recognition.Segment{
			Identified: true, StartMs: 0, EndMs: 9000, Title: ptr("T"), Cleared: ptr(true), Internal: ptr(true), PitchSemitones: ptr(-2.0),
		}, `{"identified":true,"start_ms":0,"end_ms":9000,"id":null,"title":"T","artist":null,"cleared":true,"internal":true,"isrc":null,"score":null,"external_label":null,"cover":null,"pitch_semitones":-2}`},
		{"unidentified", recognition.Segment{StartMs: 40000, EndMs: 52000},
			`{"identified":false,"start_ms":40000,"end_ms":52000,"id":null,"title":null,"artist":null,"cleared":null,"internal":null,"isrc":null,"score":null,"external_label":null,"cover":null}`},
		{"track (untimed)", recognition.Segment{Identified: true, Title: ptr("T"), Cleared: ptr(true), Internal: ptr(true)},
			`{"identified":true,"id":null,"title":"T","artist":null,"cleared":true,"internal":true,"isrc":null,"score":null,"external_label":null,"cover":null}`},
	}
	for _, tc := range cases {
		b, err := json.Marshal(tc.seg)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s:\n got %s, %v\nwant %s", tc.name, b, err, tc.want)
			continue
		}
		// What is stored reads back the same.
		var back recognition.Segment
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if again, _ := json.Marshal(back); string(again) != tc.want {
			t.Errorf("%s: round trip gives %s", tc.name, again)
		}
	}
}
