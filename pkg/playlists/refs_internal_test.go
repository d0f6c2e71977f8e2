package playlists

import (
	"strings"
	"testing"
)

// TestParseRefsNamesNullIDs: a null in an id array (decoded as "") is
// reported as null or blank, not as the "" the client never sent.
func TestParseRefsNamesNullIDs(t *testing.T) {
	_, bad := parseRefs(ItemsInput{Tracks: []string{"", "x"}, Stems: []string{" "}})
	if got := strings.Join(bad["tracks"], "|"); got != `An id may not be null or blank.|"x" is not a valid UUID.` {
		t.Fatalf("tracks: %q", got)
	}
	if got := strings.Join(bad["stems"], "|"); got != "An id may not be null or blank." {
		t.Fatalf("stems: %q", got)
	}
}
