package playlists

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	_ "image/png" // decoders registered for image.Decode
	"strings"
	"time"

	"github.com/buckket/go-blurhash"
	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/ids"
)

// Cover image sizes: the longer side of each, in pixels (an image is never
// enlarged). The stored copies are JPEG whatever the upload was.
var imageSizes = []struct {
	name string
	side int
}{{"small", 160}, {"medium", 480}, {"large", 1200}}

// ImageURLTTL is how long the signed cover URLs of a response stay valid;
// every read signs them afresh. On AWS a URL signed with the function
// role's temporary credentials also ends when they do, whatever its own
// expiry (and Lambda's execution-role sessions need not last the role's
// configured duration): an hour keeps the promise the URL makes.
const ImageURLTTL = time.Hour

const (
	jpegQuality = 85
	// blurhashSide is the size the image is scaled to before hashing: the
	// hash keeps 4x3 components, so more pixels add only time.
	blurhashSide = 64
)

var acceptedFormats = map[string]bool{"jpeg": true, "png": true, "webp": true}

type processedImage struct {
	sum      string            // content hash of the upload, names the blobs
	encoded  map[string][]byte // size name -> JPEG
	blurhash string
}

// errBadImage is the field message of an upload that is not an image we take.
var errBadImage = errors.New("Upload a valid image: a JPEG, PNG or WebP file of at most 10 MB.")

// processImage decodes a JPEG, PNG or WebP upload and re-encodes it in the
// three sizes, with its blurhash.
func processImage(data []byte) (*processedImage, error) {
	if len(data) == 0 || len(data) > MaxImageBytes {
		return nil, errBadImage
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || !acceptedFormats[format] || cfg.Width < 1 || cfg.Height < 1 ||
		cfg.Width*cfg.Height > MaxImagePixels {
		return nil, errBadImage
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, errBadImage
	}
	sum := sha256.Sum256(data)
	out := &processedImage{sum: hex.EncodeToString(sum[:8]), encoded: map[string][]byte{}}
	for _, sz := range imageSizes {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, scaleToFit(src, sz.side), &jpeg.Options{Quality: jpegQuality}); err != nil {
			return nil, fmt.Errorf("encode %s: %w", sz.name, err)
		}
		out.encoded[sz.name] = buf.Bytes()
	}
	if out.blurhash, err = blurhash.Encode(4, 3, scaleToFit(src, blurhashSide)); err != nil {
		return nil, errBadImage
	}
	return out, nil
}

// scaleToFit returns src scaled so that its longer side is at most side.
func scaleToFit(src image.Image, side int) image.Image {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= side && h <= side {
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.Draw(dst, dst.Bounds(), src, b.Min, draw.Src)
		return dst
	}
	if w >= h {
		w, h = side, max(1, h*side/w)
	} else {
		w, h = max(1, w*side/h), side
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	return dst
}

// storeImage writes the three sizes under the playlist's prefix, as
// cover-SUM-NONCE-SIZE.jpg: the content's hash (sameCover), and a nonce
// that gives every upload its own blobs. Were the keys the content's
// alone, a request replacing cover A would delete A's blobs after its
// commit while a concurrent one set A again – the playlist left pointing
// at deleted files (TestCoverSurvivesConcurrentUpdates).
func (s *Service) storeImage(ctx context.Context, playlistID string, img *processedImage) (*Image, error) {
	im := &Image{Blurhash: img.blurhash}
	nonce := ids.New32Hex()[:16]
	for _, sz := range imageSizes {
		key := "playlists/" + playlistID + "/cover-" + img.sum + "-" + nonce + "-" + sz.name + ".jpg"
		data := img.encoded[sz.name]
		if err := s.blob.Put(ctx, key, bytes.NewReader(data), int64(len(data)), "image/jpeg"); err != nil {
			s.deleteImage(ctx, im)
			return nil, errs.Wrap("playlists.storeImage", err)
		}
		switch sz.name {
		case "small":
			im.Small = key
		case "medium":
			im.Medium = key
		case "large":
			im.Large = key
		}
	}
	return im, nil
}

// sameCover reports whether two covers are the same upload's content
// (the hash their keys carry, also in the keys of covers stored before
// the nonce).
func sameCover(a, b *Image) bool {
	sum := func(im *Image) string {
		_, rest, ok := strings.Cut(im.Large[strings.LastIndex(im.Large, "/")+1:], "cover-")
		if !ok {
			return im.Large
		}
		h, _, _ := strings.Cut(rest, "-")
		return h
	}
	return a != nil && b != nil && sum(a) == sum(b)
}

// deleteImage removes a cover's blobs; a failure leaves an orphan, logged.
func (s *Service) deleteImage(ctx context.Context, im *Image) {
	if s.blob == nil {
		return
	}
	for _, k := range im.keys() {
		if k == "" {
			continue
		}
		if err := s.blob.Delete(context.WithoutCancel(ctx), k); err != nil {
			s.log.Warn("cover image not deleted", "key", k, "err", err)
		}
	}
}

// ImageURLs signs the cover's URLs (small, medium, large) for a response.
func (s *Service) ImageURLs(ctx context.Context, im *Image) (map[string]string, error) {
	if im == nil || s.blob == nil {
		return nil, nil
	}
	out := map[string]string{}
	for name, key := range map[string]string{"small": im.Small, "medium": im.Medium, "large": im.Large} {
		u, err := s.blob.PresignGet(ctx, key, ImageURLTTL, "")
		if err != nil {
			return nil, errs.Wrap("playlists.ImageURLs", err)
		}
		out[name] = u
	}
	return out, nil
}

// dropUnwrittenImage cleans up after an update with the cover newImage
// failed with err. The write may have committed all the same (a timeout),
// so the record is read again. When it shows newImage, the cover
// it replaced, old, goes. When it does not, newImage is deleted only if
// the failure is definite (writeMayCommit): a write that timed out or
// was cancelled may still commit after this read, and deleting its
// blobs would leave the playlist pointing at nothing. Such an upload, and
// one whose record cannot be read, is kept and logged: an orphaned blob
// costs storage, a deleted cover breaks the playlist.
func (s *Service) dropUnwrittenImage(ctx context.Context, playlistID string, newImage, old *Image, err error) {
	ctx = context.WithoutCancel(ctx)
	unsure := writeMayCommit(err)
	p, rerr := s.load(ctx, playlistID)
	switch {
	case errs.Is(rerr, errs.NotFound):
		// Deleted meanwhile: its Delete removed the cover it had, and a
		// pending write (conditional on the version) cannot recreate it.
		s.deleteImage(ctx, newImage)
	case rerr != nil:
		s.log.Warn("cover image kept: the playlist could not be read after a failed update",
			"playlist", playlistID, "key", newImage.Large, "err", rerr)
	case p.Image == nil || p.Image.Large != newImage.Large:
		if unsure {
			s.log.Warn("cover image kept: the failed update may still commit",
				"playlist", playlistID, "key", newImage.Large, "err", err)
			return
		}
		s.deleteImage(ctx, newImage)
	case old != nil && old.Large != newImage.Large:
		s.deleteImage(ctx, old)
	}
}
