package apitest

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
)

// ListeningURL reads a server's JSON log (slog's JSON handler) until the
// "listening on http://HOST:PORT" message the devserver and
// `admin outside-serve` log once ready, and returns that URL; from then on
// it drains the log in the background so the server never blocks writing
// it. ok is false when the log ends first.
func ListeningURL(log io.Reader) (url string, ok bool) {
	lines := bufio.NewScanner(log)
	for lines.Scan() {
		var rec struct{ Msg string }
		if json.Unmarshal(lines.Bytes(), &rec) == nil && strings.HasPrefix(rec.Msg, "listening on http://") {
			go io.Copy(io.Discard, log)
			return strings.TrimPrefix(rec.Msg, "listening on "), true
		}
	}
	return "", false
}
