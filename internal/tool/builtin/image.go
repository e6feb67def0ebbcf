package builtin

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"strings"

	xdraw "golang.org/x/image/draw"

	"golang.org/x/image/bmp"
	"golang.org/x/image/webp"
)

// imageMime detects a supported image by its magic bytes.
func imageMime(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(head, []byte{0xff, 0xd8, 0xff}):
		return "image/jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "image/gif"
	case len(head) >= 12 && bytes.Equal(head[:4], []byte("RIFF")) && bytes.Equal(head[8:12], []byte("WEBP")):
		return "image/webp"
	case len(head) >= 14 && bytes.HasPrefix(head, []byte("BM")):
		return "image/bmp"
	}
	return ""
}

// Image limits.
const (
	defaultImageMaxDim = 2000
	// imageMaxBytes keeps the base64 payload under the 5 MB most providers
	// accept.
	imageMaxBytes = 3_750_000
	jpegQuality   = 80
)

type processedImage struct {
	data     []byte
	mimeType string
	hints    []string
}

// PreparedImage is an image fitted to the model's limits by PrepareImage.
type PreparedImage struct {
	Data     []byte
	MimeType string
	// Hint tells the model how the image was scaled ("" when sent as is).
	Hint string
}

// PrepareImage checks that data (of the given image MIME type) decodes and
// fits it into maxW×maxH (2000 each when <= 0) and the byte budget the
// read tool uses, so @file arguments and read results get the same
// treatment. With autoResize off the image is sent as is, except that BMP
// is always converted to PNG.
func PrepareImage(data []byte, mime string, autoResize bool, maxW, maxH int) (PreparedImage, error) {
	p, err := processImage(data, mime, autoResize, maxW, maxH)
	if err != nil {
		return PreparedImage{}, err
	}
	return PreparedImage{Data: p.data, MimeType: p.mimeType, Hint: strings.Join(p.hints, "\n")}, nil
}

// imageCodec holds the decoders for one supported image MIME type.
type imageCodec struct {
	decode func(io.Reader) (image.Image, error)
	config func(io.Reader) (image.Config, error)
}

// codecFor returns the decoders for mime; a switch rather than a map so
// nothing is built at package init.
func codecFor(mime string) (imageCodec, error) {
	switch mime {
	case "image/png":
		return imageCodec{png.Decode, png.DecodeConfig}, nil
	case "image/jpeg":
		return imageCodec{jpeg.Decode, jpeg.DecodeConfig}, nil
	case "image/gif":
		return imageCodec{gif.Decode, gif.DecodeConfig}, nil
	case "image/webp":
		return imageCodec{webp.Decode, webp.DecodeConfig}, nil
	case "image/bmp":
		return imageCodec{bmp.Decode, bmp.DecodeConfig}, nil
	}
	return imageCodec{}, fmt.Errorf("unsupported image type %s", mime)
}

func decodeImage(data []byte, mime string) (image.Image, error) {
	c, err := codecFor(mime)
	if err != nil {
		return nil, err
	}
	return c.decode(bytes.NewReader(data))
}

func decodeConfig(data []byte, mime string) (image.Config, error) {
	c, err := codecFor(mime)
	if err != nil {
		return image.Config{}, err
	}
	return c.config(bytes.NewReader(data))
}

// processImage fits an image to the model's limits: it is passed through
// when within maxW×maxH and imageMaxBytes (BMP is always converted to PNG,
// which models accept), otherwise scaled down with a Catmull-Rom filter and
// re-encoded as JPEG (quality 80) for JPEG sources and PNG otherwise, falling
// back to JPEG and then smaller sizes while over the byte budget.
func processImage(data []byte, mime string, autoResize bool, maxW, maxH int) (processedImage, error) {
	if maxW <= 0 {
		maxW = defaultImageMaxDim
	}
	if maxH <= 0 {
		maxH = defaultImageMaxDim
	}
	cfg, err := decodeConfig(data, mime)
	if err != nil {
		return processedImage{}, fmt.Errorf("could not decode %s: %w", mime, err)
	}
	fits := cfg.Width <= maxW && cfg.Height <= maxH && len(data) <= imageMaxBytes
	if mime != "image/bmp" && (fits || !autoResize) {
		return processedImage{data: data, mimeType: mime}, nil
	}
	img, err := decodeImage(data, mime)
	if err != nil {
		return processedImage{}, fmt.Errorf("could not decode %s: %w", mime, err)
	}
	dimsFit := cfg.Width <= maxW && cfg.Height <= maxH
	if mime == "image/bmp" && (!autoResize || dimsFit) {
		// BMP within limits, or resizing is off: convert only
		out, err := encodeImage(img, "image/png")
		if err != nil {
			return processedImage{}, err
		}
		if !autoResize || len(out) <= imageMaxBytes {
			return processedImage{data: out, mimeType: "image/png"}, nil
		}
	}
	w, h := fitWithin(cfg.Width, cfg.Height, maxW, maxH)
	outMime := "image/png"
	if mime == "image/jpeg" {
		outMime = "image/jpeg"
	}
	for {
		scaled := scale(img, w, h)
		out, err := encodeImage(scaled, outMime)
		if err != nil {
			return processedImage{}, err
		}
		if len(out) > imageMaxBytes && outMime == "image/png" {
			if j, jerr := encodeImage(scaled, "image/jpeg"); jerr == nil && len(j) < len(out) {
				out, outMime = j, "image/jpeg"
			}
		}
		if len(out) <= imageMaxBytes || (w <= 1 && h <= 1) {
			p := processedImage{data: out, mimeType: outMime}
			if w != cfg.Width || h != cfg.Height {
				p.hints = append(p.hints, fmt.Sprintf(
					"[Image: original %dx%d, displayed at %dx%d. Multiply coordinates by %.2f to map to original image.]",
					cfg.Width, cfg.Height, w, h, float64(cfg.Width)/float64(w)))
			}
			return p, nil
		}
		w, h = max(1, w*3/4), max(1, h*3/4)
	}
}

func fitWithin(w, h, maxW, maxH int) (int, int) {
	if w <= maxW && h <= maxH {
		return w, h
	}
	rw := float64(maxW) / float64(w)
	rh := float64(maxH) / float64(h)
	r := min(rw, rh)
	return max(1, int(float64(w)*r+0.5)), max(1, int(float64(h)*r+0.5))
}

func scale(src image.Image, w, h int) image.Image {
	b := src.Bounds()
	if b.Dx() == w && b.Dy() == h {
		return src
	}
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	return dst
}

func encodeImage(img image.Image, mime string) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	if mime == "image/jpeg" {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: jpegQuality})
	} else {
		enc := png.Encoder{CompressionLevel: png.DefaultCompression}
		err = enc.Encode(&buf, img)
	}
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", mime, err)
	}
	return buf.Bytes(), nil
}

func b64(data []byte) string { return base64.StdEncoding.EncodeToString(data) }
