package soundtrack

import "testing"

func TestParseLink(t *testing.T) {
	for raw, want := range map[string]string{
		"https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42":           "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
		"https://youtu.be/dQw4w9WgXcQ?si=abc":                        "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
		"https://m.youtube.com/shorts/dQw4w9WgXcQ":                   "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
		"https://music.youtube.com/watch?v=dQw4w9WgXcQ":              "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
		"  https://vimeo.com/76979871/  ":                            "https://vimeo.com/76979871",
		"https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC?si=x": "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC",
		"https://soundcloud.com/artist/song":                         "https://soundcloud.com/artist/song",
		"https://music.apple.com/us/album/x/123?i=456":               "https://music.apple.com/us/album/x/123",
		"https://www.tiktok.com/@user/video/7234":                    "https://tiktok.com/@user/video/7234",
	} {
		l, err := ParseLink(raw)
		if err != nil || l.Canonical != want {
			t.Errorf("ParseLink(%q) = %+v, %v; want %s", raw, l, err, want)
		}
	}
	for _, raw := range []string{
		"", "youtube.com/watch?v=dQw4w9WgXcQ", "ftp://youtube.com/watch?v=dQw4w9WgXcQ",
		"https://www.youtube.com/@GoogleDevelopers", "https://www.youtube.com/watch?v=short",
		"https://user:pw@www.youtube.com/watch?v=dQw4w9WgXcQ", "https://www.youtube.com:8080/watch?v=dQw4w9WgXcQ",
		"https://notyoutube.com/watch?v=dQw4w9WgXcQ", "https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ",
		"https://vimeo.com/", "https://apple.com/music/x", "http://127.0.0.1/v.mp4", "https://169.254.169.254/latest/meta-data/",
	} {
		if l, err := ParseLink(raw); err == nil {
			t.Errorf("ParseLink(%q) accepted: %+v", raw, l)
		}
	}
	if _, err := ParseYouTubeVideo("https://vimeo.com/76979871"); err == nil {
		t.Error("a Vimeo link taken for a YouTube video")
	}
	if l, err := ParseYouTubeVideo("https://youtu.be/dQw4w9WgXcQ"); err != nil || l.URL != "https://youtu.be/dQw4w9WgXcQ" || l.VideoID != "dQw4w9WgXcQ" {
		t.Errorf("ParseYouTubeVideo: %+v %v", l, err)
	}
}

func TestHints(t *testing.T) {
	if tempo, energy := (Analysis{}).Hints(); tempo != 0 || energy >= 0 {
		t.Errorf("no picture: %v %v", tempo, energy)
	}
	calm := Picture{Frames: 300, Seconds: 30, Motion: 0.002}
	busy := Picture{Frames: 300, Seconds: 30, Cuts: 20, CutsPerMinute: 40, Motion: 0.05}
	ct, ce := Analysis{Picture: &calm}.Hints()
	bt, be := Analysis{Picture: &busy}.Hints()
	if !(ct >= minTempoHint && ct < bt && bt <= maxTempoHint && ce >= 0 && ce < be && be <= 1) {
		t.Errorf("calm %.1f/%.2f, busy %.1f/%.2f", ct, ce, bt, be)
	}
	if tempo, energy := (Analysis{Picture: &busy, Music: nil, MusicSeconds: 0}).Hints(); tempo == 0 || energy < 0 {
		t.Errorf("footage without music gets no hints: %v %v", tempo, energy)
	}
}
