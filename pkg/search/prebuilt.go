package search

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/blevesearch/bleve/v2"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
)

// The text index ships with the catalog snapshot: ingestion builds it when
// it publishes a version (TextIndexArtifact) and a fresh function loads it
// instead of analyzing every track's text on its first search, which took
// seconds at 100k tracks (BenchmarkColdStartByText100k). The artifact is
// the persisted bleve (scorch) index of the very documents NewIndex
// indexes in memory, so the BM25 figures, and with them every ranking,
// are the same. Since format 2 it also holds the tracks' semantic vectors
// (semIndex) and the ID of the embedder that computed them, so that a cold
// start does not embed every track's text either.

// TextIndexArtifact is the text index of a snapshot, for catalog.Publish.
var TextIndexArtifact = catalog.Artifact{Name: textArtifactName(), Build: BuildTextIndex}

// textArtifactName names the artifact by what makes its contents: the
// format, the embedder (its lexicon's checksum) and the track vectors'
// recipe. Artifacts are immutable, so under one name a new build would
// never replace an old one, and every cold start would rebuild in memory
// what it could not use until the catalog changed; under its own name a
// build is written by the next ingest, even of an unchanged catalog.
func textArtifactName() string {
	sum := sha256.Sum256([]byte(vectorsID(DefaultEmbedder())))
	return fmt.Sprintf("text-f%d-%x", textIndexFormat, sum[:6])
}

// textIndexFormat changes whenever the mapping, the documents or the
// encoding change: an artifact of another format is ignored (and the
// index built in memory), never searched.
const textIndexFormat = 2

var textIndexMagic = []byte("MCTEXTIX")

// BuildTextIndex returns the encoded text index of cat: a header, the
// vocabulary, the tracks' vectors of DefaultEmbedder, then a tar of the
// persisted scorch index.
func BuildTextIndex(cat *catalog.Catalog) ([]byte, error) {
	return buildTextIndexWith(cat, DefaultEmbedder())
}

func buildTextIndexWith(cat *catalog.Catalog, emb TextEmbedder) ([]byte, error) {
	cols, err := trackVectors(context.Background(), emb, cat.Tracks())
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "search-text-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "index")
	ti, err := buildTextIndex(path, cat.Tracks())
	if err != nil {
		return nil, err
	}
	if err := ti.idx.Close(); err != nil { // persists what is left
		return nil, fmt.Errorf("search: persist text index: %w", err)
	}
	var buf bytes.Buffer
	buf.Write(textIndexMagic)
	buf.WriteByte(textIndexFormat)
	buf.Write(binary.AppendUvarint(nil, uint64(ti.n)))
	vocab := strings.Join(ti.words, "\n")
	buf.Write(binary.AppendUvarint(nil, uint64(len(vocab))))
	buf.WriteString(vocab)
	buf.Write(binary.AppendUvarint(nil, uint64(len(vectorsID(emb)))))
	buf.WriteString(vectorsID(emb))
	buf.Write(binary.AppendUvarint(nil, uint64(emb.Dim())))
	for _, x := range cols {
		buf.WriteByte(byte(x))
	}
	tw := tar.NewWriter(&buf)
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(path, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: 0o600, Size: int64(len(b))}); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("search: pack text index: %w", err)
	}
	return buf.Bytes(), nil
}

// errTextIndexFormat: the artifact is not a text index of this format.
var errTextIndexFormat = errors.New("search: not a text index of this format")

// loadTextIndex opens the text index artifact of cat from bs (its files
// go to a temporary directory, removed when the index closes). A missing
// artifact is blob.ErrNotFound.
func loadTextIndex(ctx context.Context, bs blob.Store, cat *catalog.Catalog) (*textIndex, error) {
	rc, _, err := bs.Get(ctx, catalog.ArtifactKey(cat.Version(), TextIndexArtifact.Name))
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	r := bufio.NewReaderSize(rc, 1<<20)
	head := make([]byte, len(textIndexMagic)+1)
	if _, err := io.ReadFull(r, head); err != nil || !bytes.Equal(head[:len(textIndexMagic)], textIndexMagic) || head[len(textIndexMagic)] != textIndexFormat {
		return nil, errTextIndexFormat
	}
	n, err := binary.ReadUvarint(r)
	if err != nil || n != uint64(len(cat.Tracks())) {
		return nil, fmt.Errorf("%w: it indexes %d tracks, the snapshot has %d", errTextIndexFormat, n, len(cat.Tracks()))
	}
	size, err := binary.ReadUvarint(r)
	if err != nil || size > 1<<30 {
		return nil, errTextIndexFormat
	}
	vocab := make([]byte, size)
	if _, err := io.ReadFull(r, vocab); err != nil {
		return nil, fmt.Errorf("%w: %v", errTextIndexFormat, err)
	}
	idLen, err := binary.ReadUvarint(r)
	if err != nil || idLen > 1<<10 {
		return nil, errTextIndexFormat
	}
	id := make([]byte, idLen)
	if _, err := io.ReadFull(r, id); err != nil {
		return nil, fmt.Errorf("%w: %v", errTextIndexFormat, err)
	}
	dim, err := binary.ReadUvarint(r)
	if err != nil || dim > 1<<14 {
		return nil, errTextIndexFormat
	}
	cols := make([]byte, int(dim)*int(n))
	if _, err := io.ReadFull(r, cols); err != nil {
		return nil, fmt.Errorf("%w: %v", errTextIndexFormat, err)
	}
	dir, err := os.MkdirTemp("", "search-text-")
	if err != nil {
		return nil, err
	}
	ti, err := openTextIndex(dir, r, int(n), string(vocab))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// The bytes are the int8s as written (two's complement): reinterpreted,
	// not copied, 10 MB at 100k tracks.
	ti.semID, ti.semCols = string(id), unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(cols))), len(cols))
	return ti, nil
}

// openTextIndex unpacks the tar of an index into dir and opens it read-only.
func openTextIndex(dir string, r io.Reader, n int, vocab string) (*textIndex, error) {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errTextIndexFormat, err)
		}
		name := filepath.FromSlash(h.Name)
		if h.Typeflag != tar.TypeReg || !filepath.IsLocal(name) {
			return nil, fmt.Errorf("%w: entry %q", errTextIndexFormat, h.Name)
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, err
		}
		_, err = io.Copy(f, tr)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	idx, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		return nil, fmt.Errorf("search: open text index: %w", err)
	}
	ti := &textIndex{idx: idx, n: n, dir: dir, vocab: map[string]bool{}, cache: map[string]groupHits{}}
	if vocab != "" {
		ti.words = strings.Split(vocab, "\n")
	}
	for _, w := range ti.words {
		ti.vocab[w] = true
	}
	return ti, nil
}
