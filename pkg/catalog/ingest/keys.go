package ingest

import (
	"fmt"

	"musiccatalog/pkg/audio/fingerprint"
)

// Blob keys ingestion writes. Renditions are per asset (downloads name them
// by asset); what is derived from audio alone is stored under the audio's
// SHA-256 and shared by every asset with that audio.
func mp3Key(id string) string { return "catalog/audio/" + id + ".mp3" }
func wavKey(id string) string { return "catalog/audio/" + id + ".wav" }

// WaveformKey is where the waveform peaks of audio with this SHA-256 are.
func WaveformKey(sha string) string { return "catalog/waveforms/" + sha + ".json" }

func factsKey(sha, analyzer string) string {
	return fmt.Sprintf("catalog/analysis/%s/%s.json", analyzer, sha)
}

func hashesKey(sha string) string {
	return fmt.Sprintf("catalog/fingerprints/hashes/v%d/%s.fph", fingerprint.FormatVersion, sha)
}

// stemHashesKey holds the hashes of stem audio, fingerprinted sparser
// than tracks (stemOptions, whose density the name carries).
func stemHashesKey(sha string) string {
	return fmt.Sprintf("catalog/fingerprints/hashes/v%d/stem-%g/%s.fph", fingerprint.FormatVersion, stemOptions.PeaksPerSecond, sha)
}

func segmentKey(digest string) string {
	return "catalog/fingerprints/segments/" + digest + ".fpi"
}
