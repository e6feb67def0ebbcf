package cli

import "github.com/relay-agent/relay/internal/tool/builtin"

// fitArgImage checks that an @file image decodes and, with autoResize,
// scales it into the limits of settings.md images.autoResize (at most
// 2000×2000 and a byte budget under the 5 MB providers accept), exactly as
// the read tool does. hint is the text for inside the <file> tag (empty
// when the image is sent as is). BMP, which models do not take, is always
// converted to PNG.
func fitArgImage(data []byte, mime string, autoResize bool) (out []byte, outMime, hint string, err error) {
	p, err := builtin.PrepareImage(data, mime, autoResize, 0, 0)
	if err != nil {
		return nil, "", "", err
	}
	return p.Data, p.MimeType, p.Hint, nil
}
