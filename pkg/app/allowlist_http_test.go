package app

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
)

const channelsPath = "/api/v4/allowlist/channels/"

type channelPage struct {
	Count    int       `json:"count"`
	Next     *string   `json:"next"`
	Previous *string   `json:"previous"`
	Results  []channel `json:"results"`
}

type channel struct {
	ID        string `json:"id"`
	ChannelID string `json:"channel_id"`
	Name      string `json:"name"`
	Provider  string `json:"provider"`
	ImageURL  string `json:"image_url"`
}

func TestAllowlistAuthentication(t *testing.T) {
	d, creds := newTestDeps(t)
	c := apitest.New(t, d.LocalHandler())
	ctx := context.Background()
	detail := func(tok, want string, status int) {
		t.Helper()
		h := map[string]string{}
		if tok != "" {
			h["Authorization"] = tok
		}
		r := c.Do(apitest.Request{Method: "GET", Path: channelsPath, Header: h})
		got, _ := r.Map(t)["detail"].(string)
		if r.Status != status || got != want {
			t.Errorf("Authorization %q: %d %s; want %d %q", tok, r.Status, r.Body, status, want)
		}
		if status == 401 && r.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("401 without WWW-Authenticate")
		}
	}
	detail("", "Authentication credentials were not provided.", 401)
	detail("Bearer nope", "Invalid token.", 401)
	detail("Basic dXNlcjpwYXNz", "Invalid token.", 401)
	detail("Bearer "+creds.User.Token, "This endpoint requires a partner API key, not a user token.", 403)

	expiring, err := d.Identity.CreateToken(ctx, creds.Partner.ClientID, "", time.Now().Add(-time.Second))
	if err != nil {
		t.Fatal(err)
	}
	detail("Bearer "+expiring, "Token has expired.", 401)

	cl, key, err := d.Identity.CreateClient(ctx, identity.NewClient{Name: "Other", Plan: identity.PlanFree})
	if err != nil {
		t.Fatal(err)
	}
	detail("Bearer "+key, "", 200) // a 200 list has no detail
	if err := d.Identity.SetClientStatus(ctx, cl.ID, identity.StatusInactive); err != nil {
		t.Fatal(err)
	}
	detail("Bearer "+key, "Client account is inactive.", 403)
	if err := d.Identity.SetClientStatus(ctx, cl.ID, identity.StatusActive); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Identity.RevokeClientTokens(ctx, cl.ID); err != nil {
		t.Fatal(err)
	}
	detail("Bearer "+key, "Token has been revoked.", 401)
}

func TestAllowlistAddListRemove(t *testing.T) {
	_, _, c := partnerClient(t)

	list := func(query string, header map[string]string) channelPage {
		t.Helper()
		r := c.Do(apitest.Request{Method: "GET", Path: channelsPath + query, Header: header})
		if r.Status != 200 {
			t.Fatalf("list %s: %d %s", query, r.Status, r.Body)
		}
		var p channelPage
		r.JSON(t, &p)
		return p
	}
	if p := list("", nil); p.Count != 0 || len(p.Results) != 0 || p.Next != nil || p.Previous != nil {
		t.Fatalf("fresh list = %+v", p)
	}

	add := func(body any, header map[string]string, status int) channel {
		t.Helper()
		r := c.Do(apitest.Request{Method: "POST", Path: channelsPath, JSON: body, Header: header})
		if r.Status != status {
			t.Fatalf("add %v: %d %s; want %d", body, r.Status, r.Body, status)
		}
		var ch channel
		r.JSON(t, &ch)
		return ch
	}
	first := add(map[string]string{"url": "https://www.youtube.com/@GoogleDevelopers"}, nil, 201)
	if first.Provider != "youtube" || first.ChannelID != "@GoogleDevelopers" || first.Name != "GoogleDevelopers" {
		t.Errorf("added %+v", first)
	}
	again := add(map[string]string{"url": "https://youtube.com/@GoogleDevelopers"}, nil, 200)
	if again.ID != first.ID {
		t.Errorf("retry made a new entry: %s vs %s", again.ID, first.ID)
	}
	// Handles are case-insensitive on YouTube: the same channel.
	if folded := add(map[string]string{"url": "https://www.youtube.com/@googledevelopers"}, nil, 200); folded.ID != first.ID {
		t.Errorf("@googledevelopers made a second entry: %s vs %s", folded.ID, first.ID)
	}
	for i := range 4 {
		add(map[string]string{"provider": "twitch", "channel_id": fmt.Sprintf("streamer_%d", i)}, nil, 201)
	}
	p := list("", nil)
	if p.Count != 5 || p.Results[0].ChannelID != "streamer_3" || p.Results[4].ID != first.ID {
		t.Fatalf("list not newest first: %+v", p)
	}

	// Pagination keeps every other parameter and stops at the end.
	p = list("?limit=2&offset=2&foo=bar", nil)
	if len(p.Results) != 2 || p.Next == nil || p.Previous == nil {
		t.Fatalf("page = %+v", p)
	}
	next, _ := url.Parse(*p.Next)
	if q := next.Query(); q.Get("offset") != "4" || q.Get("limit") != "2" || q.Get("foo") != "bar" || next.Host == "" {
		t.Errorf("next = %s", *p.Next)
	}
	if p = list("?limit=2&offset=4", nil); p.Next != nil || len(p.Results) != 1 {
		t.Errorf("last page = %+v", p)
	}
	if p = list("?limit=500", nil); len(p.Results) != 5 {
		t.Errorf("limit 500 (clamped to 200) gave %d results", len(p.Results))
	}

	// X-User-ID scopes the list, exactly as written.
	user := map[string]string{"X-User-ID": "end-user-42"}
	add(map[string]string{"url": "https://www.tiktok.com/@creator.one"}, user, 201)
	if p := list("", user); p.Count != 1 || p.Results[0].ChannelID != "@creator.one" {
		t.Errorf("end user's list = %+v", p)
	}
	if p := list("", map[string]string{"X-User-ID": "END-USER-42"}); p.Count != 0 {
		t.Errorf("X-User-ID was not taken exactly as written: %+v", p)
	}
	if p := list("", nil); p.Count != 5 {
		t.Errorf("own list changed by an end user's add: %d", p.Count)
	}

	// Remove.
	del := func(id string, header map[string]string, status int) {
		t.Helper()
		if r := c.Do(apitest.Request{Method: "DELETE", Path: channelsPath + id + "/", Header: header}); r.Status != status {
			t.Fatalf("delete %s: %d %s; want %d", id, r.Status, r.Body, status)
		}
	}
	del(first.ID, user, 404) // not the end user's entry
	del(first.ID, nil, 204)
	del(first.ID, nil, 404)
	del("not-a-uuid", nil, 404)
	if p := list("", nil); p.Count != 4 {
		t.Errorf("after delete count = %d", p.Count)
	}
}

func TestAllowlistRejectsBadInputAndChangesNothing(t *testing.T) {
	_, _, c := partnerClient(t)
	cases := []struct {
		name   string
		req    apitest.Request
		status int
		key    string
	}{
		{"both forms", apitest.Request{JSON: map[string]string{"url": "https://twitch.tv/abcd", "provider": "twitch"}}, 400, "detail"},
		{"neither", apitest.Request{JSON: map[string]string{}}, 400, "detail"},
		{"unknown provider", apitest.Request{JSON: map[string]string{"provider": "myspace", "channel_id": "x"}}, 400, "provider"},
		{"bad id", apitest.Request{JSON: map[string]string{"provider": "youtube", "channel_id": "nope"}}, 400, "channel_id"},
		{"missing id", apitest.Request{JSON: map[string]string{"provider": "youtube"}}, 400, "channel_id"},
		{"video url", apitest.Request{JSON: map[string]string{"url": "https://www.youtube.com/watch?v=abc"}}, 400, "url"},
		{"other site", apitest.Request{JSON: map[string]string{"url": "https://example.com/@me"}}, 400, "url"},
		{"http image", apitest.Request{JSON: map[string]string{"url": "https://twitch.tv/abcd", "image_url": "http://x/y.png"}}, 400, "image_url"},
		{"wrong type", apitest.Request{JSON: map[string]int{"url": 5}}, 400, "url"},
		{"not json", apitest.Request{Body: []byte("url=x"), Header: map[string]string{"Content-Type": "application/json"}}, 400, "detail"},
		{"form body", apitest.Request{Body: []byte("url=x"), Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}, 415, "detail"},
		{"too large", apitest.Request{JSON: map[string]string{"url": "https://twitch.tv/abcd", "name": strings.Repeat("x", 1_100_000)}}, 413, "detail"},
		{"blank user", apitest.Request{JSON: map[string]string{"url": "https://twitch.tv/abcd"}, Header: map[string]string{"X-User-ID": " "}}, 400, "detail"},
		{"long user", apitest.Request{JSON: map[string]string{"url": "https://twitch.tv/abcd"}, Header: map[string]string{"X-User-ID": strings.Repeat("u", 256)}}, 400, "detail"},
		{"comma user", apitest.Request{JSON: map[string]string{"url": "https://twitch.tv/abcd"}, Header: map[string]string{"X-User-ID": "a,b"}}, 400, "detail"},
	}
	for _, tc := range cases {
		tc.req.Method, tc.req.Path = "POST", channelsPath
		r := c.Do(tc.req)
		if r.Status != tc.status {
			t.Errorf("%s: %d %s; want %d", tc.name, r.Status, r.Body, tc.status)
			continue
		}
		if _, ok := r.Map(t)[tc.key]; !ok {
			t.Errorf("%s: body %s lacks %q", tc.name, r.Body, tc.key)
		}
	}
	r := c.Do(apitest.Request{Method: "GET", Path: channelsPath})
	if got := r.Map(t)["count"]; got != float64(0) {
		t.Errorf("bad input changed the list: count %v", got)
	}
	if r := c.Do(apitest.Request{Method: "GET", Path: "/api/v4/allowlist/channels"}); r.Status != 404 ||
		!strings.Contains(r.Map(t)["detail"].(string), channelsPath) {
		t.Errorf("no-slash path: %d %s", r.Status, r.Body)
	}
	if r := c.Do(apitest.Request{Method: "PUT", Path: channelsPath}); r.Status != 405 {
		t.Errorf("PUT: %d %s", r.Status, r.Body)
	}
	if r := c.Do(apitest.Request{Method: "GET", Path: channelsPath + "?limit=abc"}); r.Status != 400 || r.Map(t)["limit"] == nil {
		t.Errorf("limit=abc: %d %s", r.Status, r.Body)
	}
}

func TestAllowlistConcurrentAddsOfOneChannelMakeOneEntry(t *testing.T) {
	_, _, c := partnerClient(t)
	done := make(chan int, 20)
	for range 20 {
		go func() {
			r := c.Do(apitest.Request{Method: "POST", Path: channelsPath, JSON: map[string]string{"url": "https://www.twitch.tv/same_one"}})
			done <- r.Status
		}()
	}
	created := 0
	for range 20 {
		switch s := <-done; s {
		case 201:
			created++
		case 200:
		default:
			t.Errorf("status %d", s)
		}
	}
	if created != 1 {
		t.Errorf("%d adds reported 201, want exactly 1", created)
	}
	if got := c.Do(apitest.Request{Method: "GET", Path: channelsPath}).Map(t)["count"]; got != float64(1) {
		t.Errorf("count %v, want 1", got)
	}
}
