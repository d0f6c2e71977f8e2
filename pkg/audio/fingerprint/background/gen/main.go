// Command gen builds the background index (package background) from audio
// files: each is decoded, fingerprinted with the catalog's index options
// and added under the ID "background:" plus its name; the index and its
// SHA-256 are written next to package background.
//
//	go run ./pkg/audio/fingerprint/background/gen FILE...
//
// The files shipped: see ../LICENSE.
package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/fingerprint"
)

func main() {
	out := flag.String("out", "pkg/audio/fingerprint/background", "directory to write background.idx and background.sha256 in")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("usage: gen [-out DIR] FILE...")
	}
	fp := fingerprint.New(fingerprint.IndexOptions)
	b := fingerprint.NewBuilder()
	var seconds float64
	for _, path := range flag.Args() {
		pcm, err := decode.Decoder{}.DecodeFile(context.Background(), path)
		if err != nil {
			log.Fatalf("%s: %v", path, err)
		}
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		album := filepath.Base(filepath.Dir(path))
		if err := b.Add("background:"+album+"/"+name, pcm.Seconds(), fp.Fingerprint(pcm)); err != nil {
			log.Fatal(err)
		}
		seconds += pcm.Seconds()
	}
	ix := b.Build()
	data, err := ix.MarshalBinary()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*out, "background.idx"), data, 0o644); err != nil {
		log.Fatal(err)
	}
	sum := fmt.Sprintf("%x  background.idx\n", sha256.Sum256(data))
	if err := os.WriteFile(filepath.Join(*out, "background.sha256"), []byte(sum), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d tracks, %.0f s, %d postings, %d bytes\n", len(ix.Tracks()), seconds, ix.Len(), len(data))
}
