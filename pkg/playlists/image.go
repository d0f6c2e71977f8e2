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
	"time"

	"github.com/buckket/go-blurhash"
	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp"

	"musiccatalog/pkg/errs"
)

// Cover image sizes: the longer side of each, in pixels (an image is never
// enlarged). The stored copies are JPEG whatever the upload was.
var imageSizes = []struct {
	name string
	side int
}{{"small", 160}, {"medium", 480}, {"large", 1200}}

// ImageURLTTL is how long the signed cover URLs of a response stay valid.
const ImageURLTTL = 12 * time.Hour

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

// storeImage writes the three sizes under the playlist's prefix.
func (s *Service) storeImage(ctx context.Context, playlistID string, img *processedImage) (*Image, error) {
	im := &Image{Blurhash: img.blurhash}
	for _, sz := range imageSizes {
		key := "playlists/" + playlistID + "/cover-" + img.sum + "-" + sz.name + ".jpg"
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
// failed. The failure may be ambiguous (a timeout after the store
// committed the write), and the same upload may be the cover already or
// have been made the cover by a concurrent request: the record is read
// again, and newImage is deleted only when it is not the cover. When it
// is (the write committed after all), the cover it replaced, old, goes
// instead. If the record cannot be read, nothing is deleted: an orphaned
// blob costs storage, a deleted cover breaks the playlist.
func (s *Service) dropUnwrittenImage(ctx context.Context, playlistID string, newImage, old *Image) {
	ctx = context.WithoutCancel(ctx)
	p, err := s.load(ctx, playlistID)
	switch {
	case errs.Is(err, errs.NotFound):
		// Deleted meanwhile: its Delete removed the cover it had.
		s.deleteImage(ctx, newImage)
	case err != nil:
		s.log.Warn("cover image kept: the playlist could not be read after a failed update",
			"playlist", playlistID, "key", newImage.Large, "err", err)
	case p.Image == nil || p.Image.Large != newImage.Large:
		s.deleteImage(ctx, newImage)
	case old != nil && old.Large != newImage.Large:
		s.deleteImage(ctx, old)
	}
}
