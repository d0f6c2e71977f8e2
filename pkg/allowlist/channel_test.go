package allowlist

import "testing"

func TestParseChannelURL(t *testing.T) {
	ok := []struct{ url, provider, id string }{
		{"https://www.youtube.com/channel/UC_x5XG1OV2P6uZZ5FSM9Ttw", "youtube", "UC_x5XG1OV2P6uZZ5FSM9Ttw"},
		{"https://youtube.com/@GoogleDevelopers/videos", "youtube", "@GoogleDevelopers"},
		{"http://m.youtube.com/@abc_def", "youtube", "@abc_def"},
		{"https://www.twitch.tv/some_streamer", "twitch", "some_streamer"},
		{"https://www.tiktok.com/@creator.name", "tiktok", "@creator.name"},
		{"https://instagram.com/photo.person/", "instagram", "photo.person"},
		{"https://vimeo.com/studioname", "vimeo", "studioname"},
		{"https://www.facebook.com/my.page.name", "facebook", "my.page.name"},
		{"https://music.youtube.com/channel/UC_x5XG1OV2P6uZZ5FSM9Ttw", "youtube", "UC_x5XG1OV2P6uZZ5FSM9Ttw"},
		{"https://www.facebook.com/profile.php?id=100064715237788", "facebook", "100064715237788"},
	}
	for _, c := range ok {
		p, id, err := ParseChannelURL(c.url)
		if err != nil || p != c.provider || id != c.id {
			t.Errorf("ParseChannelURL(%q) = %q, %q, %v; want %q, %q", c.url, p, id, err, c.provider, c.id)
		}
	}
	bad := []string{
		"", "not a url", "ftp://youtube.com/@abc", "https://example.com/@abc",
		"https://www.youtube.com/watch?v=dQw4w9WgXcQ", "https://www.youtube.com/channel/short",
		"https://www.twitch.tv/directory", "https://www.tiktok.com/foryou", "https://instagram.com/p/Cx1",
		"https://vimeo.com/123456", "https://youtube.com.evil.test/@abc",
		"https://www.facebook.com/profile.php", "https://www.facebook.com/profile.php?id=x",
	}
	for _, u := range bad {
		if p, id, err := ParseChannelURL(u); err == nil {
			t.Errorf("ParseChannelURL(%q) = %q, %q; want an error", u, p, id)
		}
	}
}

func TestValidateChannelID(t *testing.T) {
	if f, _ := ValidateChannelID("youtube", "UC_x5XG1OV2P6uZZ5FSM9Ttw"); f != "" {
		t.Errorf("valid youtube id rejected on %s", f)
	}
	if f, _ := ValidateChannelID("myspace", "x"); f != "provider" {
		t.Errorf("unknown provider: field %q, want provider", f)
	}
	if f, _ := ValidateChannelID("twitch", "a b"); f != "channel_id" {
		t.Errorf("bad twitch id: field %q, want channel_id", f)
	}
}

func TestIdentityOfFoldsCaseWherePlatformsDo(t *testing.T) {
	cases := []struct {
		provider, a, b string
		same           bool
	}{
		{"youtube", "@GoogleDevelopers", "@googledevelopers", true},
		{"youtube", "UC_x5XG1OV2P6uZZ5FSM9Ttw", "UC_x5XG1OV2P6uZZ5FSM9TTW", false},
		{"twitch", "Foo_bar", "foo_bar", true},
		{"instagram", "Photo.Person", "photo.person", true},
	}
	for _, c := range cases {
		if got := IdentityOf(c.provider, c.a) == IdentityOf(c.provider, c.b); got != c.same {
			t.Errorf("%s: %q and %q one channel = %v, want %v", c.provider, c.a, c.b, got, c.same)
		}
	}
}
