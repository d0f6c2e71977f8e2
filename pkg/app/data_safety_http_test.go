package app

import (
	"bytes"
	"mime/multipart"
	"testing"

	"musiccatalog/pkg/httpapi/apitest"
)

// TestPlaylistPatchWithoutFieldsChangesNothing: PATCH (and PUT) with an
// empty object answers the playlist as it is; updated_at does not move.
func TestPlaylistPatchWithoutFieldsChangesNothing(t *testing.T) {
	e := newPlaylistEnv(t)
	p := e.create(e.owner, "Still")
	path := mePlaylists + "still/"
	for _, method := range []string{"PATCH", "PUT"} {
		r, m := e.do(e.owner, method, path, map[string]any{})
		if r.Status != 200 || m["name"] != "Still" || m["updated_at"] != p["updated_at"] {
			t.Errorf("%s {}: %d updated_at %v, want 200 and %v", method, r.Status, m["updated_at"], p["updated_at"])
		}
	}
	if _, m := e.do(e.owner, "GET", path, nil); m["updated_at"] != p["updated_at"] {
		t.Errorf("stored updated_at %v, want %v", m["updated_at"], p["updated_at"])
	}
}

// TestPlaylistTrackListingNamesTheMissingField: the listing's 400 uses
// the text every other endpoint uses for a missing required input.
func TestPlaylistTrackListingNamesTheMissingField(t *testing.T) {
	e := newPlaylistEnv(t)
	r, m := e.do(e.owner, "GET", "/api/v4/en/tracks/", nil)
	got, _ := m["user_playlist"].([]any)
	if r.Status != 400 || len(got) != 1 || got[0] != "This field is required." {
		t.Errorf("no user_playlist: %d %s", r.Status, r.Body)
	}
}

// TestRecognitionMultipartStorageKeySaysJSON: a storage_key sent as a
// multipart field (after the file here) is refused with the spec's text
// plus where the key belongs.
func TestRecognitionMultipartStorageKeySaysJSON(t *testing.T) {
	_, _, c := partnerClient(t)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("file", "clip.mp4")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(bytes.Repeat([]byte{1}, 4096))
	mw.WriteField("storage_key", "video-recognition/x/clip.mp4")
	mw.Close()
	r := c.Do(apitest.Request{Method: "POST", Path: recognitionPath, Body: buf.Bytes(),
		Header: map[string]string{"Content-Type": mw.FormDataContentType()}})
	want := "Provide exactly one of `file` or `storage_key`. A `storage_key` is sent in a JSON body (Content-Type: application/json); a multipart form carries only `file`."
	if r.Status != 400 || r.Map(t)["detail"] != want {
		t.Errorf("multipart with storage_key: %d %s", r.Status, r.Body)
	}
}
