package decode_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
)

// TestHostileContainersAreRefused: inputs whose demuxer would open other
// files – an HLS playlist or a concat list naming a local media file,
// uploaded as "x.mp4" – are corrupt media, and the file they name is
// never decoded.
func TestHostileContainersAreRefused(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.mp3")
	ffmpeg(t, "-f", "lavfi", "-i", "sine=f=440:d=5", secret)
	ctx := context.Background()
	if _, err := (decode.Decoder{}).DecodeFile(ctx, secret); err != nil {
		t.Fatalf("the referenced file itself decodes: %v", err)
	}
	for name, body := range map[string]string{
		"hls":    "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n" + secret + "\n#EXT-X-ENDLIST\n",
		"concat": "ffconcat version 1.0\nfile '" + secret + "'\n",
		"sdp":    "v=0\no=- 0 0 IN IP4 127.0.0.1\ns=x\nc=IN IP4 127.0.0.1\nt=0 0\nm=audio 5004 RTP/AVP 0\n",
	} {
		path := filepath.Join(dir, name+".mp4")
		os.WriteFile(path, []byte(body), 0o644)
		if _, err := (decode.Decoder{}).Probe(ctx, path); !errors.Is(err, decode.ErrCorrupt) {
			t.Errorf("%s: probe: %v", name, err)
		}
		p, err := decode.Decoder{}.DecodeFile(ctx, path)
		if !errors.Is(err, decode.ErrCorrupt) || decode.Code(err) != "corrupt_media" || len(p.Samples) != 0 {
			t.Errorf("%s: %d samples, %v", name, len(p.Samples), err)
		}
	}
	// A path that reads as a protocol is still a file name.
	odd := filepath.Join(dir, "concat:"+filepath.Base(secret))
	os.Link(secret, odd)
	if m, err := (decode.Decoder{}).Probe(ctx, odd); err != nil || m.Format != "mp3" || !m.Audio || m.Seconds < 4.9 {
		t.Errorf("file named like a protocol: %+v %v", m, err)
	}
}

// TestTooLongStopsEarly: with TooLongAfter, a container that says it is
// too long fails before decoding, and one that understates its length
// fails when decoding passes the cap.
func TestTooLongStopsEarly(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	ctx := context.Background()
	long := filepath.Join(dir, "long.mp4")
	ffmpeg(t, "-f", "lavfi", "-i", "sine=f=440:d=30", "-c:a", "aac", "-b:a", "16k", long)
	d := decode.Decoder{TooLongAfter: 10}
	if _, err := d.DecodeFile(ctx, long); !errors.Is(err, decode.ErrTooLong) || decode.Code(err) != "too_long" {
		t.Errorf("long: %v", err)
	}
	// A container may understate its duration (ffprobe estimates it from
	// the bit rate for some formats): decoding still stops at the cap.
	m, err := d.Probe(ctx, long)
	if err != nil {
		t.Fatal(err)
	}
	m.Seconds = 5 // as an understating container would claim
	if _, err := d.DecodeMedia(ctx, m, 0, 0); !errors.Is(err, decode.ErrTooLong) {
		t.Errorf("understated: %v", err)
	}
	short := filepath.Join(dir, "short.wav")
	f, _ := os.Create(short)
	decode.WriteWAV(f, audiotest.Tone(22050, 9, 440, 0.5))
	f.Close()
	if p, err := d.DecodeFile(ctx, short); err != nil || p.Seconds() < 8.9 {
		t.Errorf("within the cap: %.1f s, %v", p.Seconds(), err)
	}
}
