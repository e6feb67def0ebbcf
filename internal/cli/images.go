package cli

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"

	xdraw "golang.org/x/image/draw"

	"golang.org/x/image/bmp"
	"golang.org/x/image/webp"
)

// Limits for @file images (settings.md images.autoResize: at most
// 2000×2000; the byte budget keeps the base64 payload under the 5 MB
// providers accept). The read tool applies the same limits in
// internal/tool/builtin, which does not export them.
const (
	argImageMaxDim   = 2000
	argImageMaxBytes = 3_750_000
)

// fitArgImage checks that an @file image decodes and, with autoResize,
// scales it into the limits. hint is the text for inside the <file> tag
// (empty when the image is sent as is). BMP, which models do not take, is
// always converted to PNG.
func fitArgImage(data []byte, mime string, autoResize bool) (out []byte, outMime, hint string, err error) {
	cfg, err := decodeArgImage(data, mime, true)
	if err != nil {
		return nil, "", "", err
	}
	fits := cfg.w <= argImageMaxDim && cfg.h <= argImageMaxDim && len(data) <= argImageMaxBytes
	if mime != "image/bmp" && (fits || !autoResize) {
		return data, mime, "", nil
	}
	full, err := decodeArgImage(data, mime, false)
	if err != nil {
		return nil, "", "", err
	}
	w, h := cfg.w, cfg.h
	if autoResize {
		w, h = fitDims(w, h, argImageMaxDim)
	}
	outMime = "image/png"
	if mime == "image/jpeg" {
		outMime = "image/jpeg"
	}
	for {
		scaled := full.img
		if w != cfg.w || h != cfg.h {
			dst := image.NewNRGBA(image.Rect(0, 0, w, h))
			xdraw.CatmullRom.Scale(dst, dst.Bounds(), full.img, full.img.Bounds(), draw.Src, nil)
			scaled = dst
		}
		out, err = encodeArgImage(scaled, outMime)
		if err != nil {
			return nil, "", "", err
		}
		if len(out) > argImageMaxBytes && outMime == "image/png" && autoResize {
			if j, jerr := encodeArgImage(scaled, "image/jpeg"); jerr == nil && len(j) < len(out) {
				out, outMime = j, "image/jpeg"
			}
		}
		if !autoResize || len(out) <= argImageMaxBytes || (w <= 1 && h <= 1) {
			break
		}
		w, h = max(1, w*3/4), max(1, h*3/4)
	}
	if w != cfg.w || h != cfg.h {
		hint = fmt.Sprintf("[Image: original %dx%d, displayed at %dx%d. Multiply coordinates by %.2f to map to original image.]",
			cfg.w, cfg.h, w, h, float64(cfg.w)/float64(w))
	}
	return out, outMime, hint, nil
}

type argImage struct {
	w, h int
	img  image.Image
}

// decodeArgImage decodes the header only (configOnly) or the whole image.
func decodeArgImage(data []byte, mime string, configOnly bool) (argImage, error) {
	type codec struct {
		cfg func(r *bytes.Reader) (image.Config, error)
		dec func(r *bytes.Reader) (image.Image, error)
	}
	codecs := map[string]codec{
		"image/png":  {func(r *bytes.Reader) (image.Config, error) { return png.DecodeConfig(r) }, func(r *bytes.Reader) (image.Image, error) { return png.Decode(r) }},
		"image/jpeg": {func(r *bytes.Reader) (image.Config, error) { return jpeg.DecodeConfig(r) }, func(r *bytes.Reader) (image.Image, error) { return jpeg.Decode(r) }},
		"image/gif":  {func(r *bytes.Reader) (image.Config, error) { return gif.DecodeConfig(r) }, func(r *bytes.Reader) (image.Image, error) { return gif.Decode(r) }},
		"image/webp": {func(r *bytes.Reader) (image.Config, error) { return webp.DecodeConfig(r) }, func(r *bytes.Reader) (image.Image, error) { return webp.Decode(r) }},
		"image/bmp":  {func(r *bytes.Reader) (image.Config, error) { return bmp.DecodeConfig(r) }, func(r *bytes.Reader) (image.Image, error) { return bmp.Decode(r) }},
	}
	c, ok := codecs[mime]
	if !ok {
		return argImage{}, fmt.Errorf("unsupported image type %s", mime)
	}
	if configOnly {
		cfg, err := c.cfg(bytes.NewReader(data))
		if err != nil {
			return argImage{}, fmt.Errorf("could not decode %s: %w", mime, err)
		}
		return argImage{w: cfg.Width, h: cfg.Height}, nil
	}
	img, err := c.dec(bytes.NewReader(data))
	if err != nil {
		return argImage{}, fmt.Errorf("could not decode %s: %w", mime, err)
	}
	b := img.Bounds()
	return argImage{w: b.Dx(), h: b.Dy(), img: img}, nil
}

func fitDims(w, h, maxDim int) (int, int) {
	if w <= maxDim && h <= maxDim {
		return w, h
	}
	r := min(float64(maxDim)/float64(w), float64(maxDim)/float64(h))
	return max(1, int(float64(w)*r+0.5)), max(1, int(float64(h)*r+0.5))
}

func encodeArgImage(img image.Image, mime string) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	if mime == "image/jpeg" {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80})
	} else {
		err = png.Encode(&buf, img)
	}
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", mime, err)
	}
	return buf.Bytes(), nil
}
