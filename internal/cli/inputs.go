package cli

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/llm"
)

type input struct {
	app.Input
	fromStdin bool
}

// buildInputs assembles the prompts: the first is piped stdin + @file
// texts + the first message (no separators), with @file images attached;
// every further message is its own prompt.
func buildInputs(a *Args, stdin io.Reader, m mode, cwd string, img imageOptions) ([]input, error) {
	var first strings.Builder
	fromStdin := false
	if m != modeRPC && stdin != nil && !isTTY(stdin) {
		// Bounded: `yes | relay -p hi` must end, not eat all memory.
		b, over, err := fsx.ReadAtMost(stdin, config.MaxPromptText)
		if err != nil {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
		if over {
			return nil, fmt.Errorf("piped stdin is larger than %d bytes (%s), the limit for a prompt; pass a smaller part of it, or write it to a file the agent can read with its tools", config.MaxPromptText, humanSize(config.MaxPromptText))
		}
		if s := strings.TrimSpace(string(b)); s != "" {
			first.WriteString(s)
			fromStdin = true
		}
	}
	var images []llm.ImageContent
	for _, f := range a.Files {
		text, im, err := fileArg(f, cwd, img)
		if err != nil {
			return nil, err
		}
		first.WriteString(text)
		if im != nil {
			images = append(images, *im)
		}
	}
	msgs := a.Messages
	if len(msgs) > 0 {
		first.WriteString(msgs[0])
		msgs = msgs[1:]
	}
	var out []input
	if first.Len() > 0 || len(images) > 0 {
		out = append(out, input{Input: app.Input{Text: first.String(), Images: images}, fromStdin: fromStdin})
	}
	for _, msg := range msgs {
		out = append(out, input{Input: app.Input{Text: msg}})
	}
	return out, nil
}

var imageMimes = map[string]string{"image/png": "image/png", "image/jpeg": "image/jpeg", "image/gif": "image/gif", "image/webp": "image/webp", "image/bmp": "image/bmp"}

// imageOptions are the settings' images.autoResize and images.blockImages.
type imageOptions struct{ autoResize, block bool }

// fileArg reads one @file: text inside a <file> tag, or an image attached
// with a tag that holds only the resize hint. An image that does not
// decode, or that images.blockImages keeps back, is not attached: the tag
// says why instead.
func fileArg(name, cwd string, opt imageOptions) (string, *llm.ImageContent, error) {
	p, err := config.ExpandHome(name)
	if err != nil {
		return "", nil, err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	abs, _ := filepath.Abs(p)
	st, err := os.Stat(abs)
	if err != nil {
		return "", nil, fmt.Errorf("file not found: %s", name)
	}
	if st.IsDir() {
		return "", nil, fmt.Errorf("@%s is a directory, not a file", name)
	}
	b, mime, isImage, err := readFileArg(abs)
	if err != nil {
		return "", nil, fmt.Errorf("@%s: %w", name, err)
	}
	if len(b) == 0 {
		return "", nil, nil
	}
	if isImage {
		if opt.block {
			return fmt.Sprintf("<file name=\"%s\">[Image not sent: images.blockImages is set]</file>\n", abs), nil, nil
		}
		data, outMime, hint, err := fitArgImage(b, mime, opt.autoResize)
		if err != nil {
			return fmt.Sprintf("<file name=\"%s\">[Image could not be processed: %v]</file>\n", abs, err), nil, nil
		}
		img := &llm.ImageContent{Data: base64.StdEncoding.EncodeToString(data), MimeType: outMime}
		return fmt.Sprintf("<file name=\"%s\">%s</file>\n", abs, hint), img, nil
	}
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	return fmt.Sprintf("<file name=\"%s\">\n%s\n</file>\n", abs, b), nil, nil
}

// readFileArg reads an @file: a regular file (a FIFO or device is refused
// before it is read) of at most config.MaxPromptText bytes of text, or
// config.MaxImageFile bytes of image (images are resized before sending).
// The first bytes decide which limit applies, so a huge text file is
// refused without being read.
func readFileArg(path string) (data []byte, mime string, isImage bool, err error) {
	f, err := fsx.OpenRegular(path)
	if err != nil {
		return nil, "", false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, "", false, err
	}
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, "", false, err
	}
	head = head[:n]
	if n == 0 {
		return nil, "", false, nil
	}
	mime, isImage = imageMimes[http.DetectContentType(head)]
	limit, what := int64(config.MaxPromptText), "a text file"
	if isImage {
		limit, what = config.MaxImageFile, "an image"
	}
	tooLarge := func(size string) error {
		return fmt.Errorf("too large (%s; the limit for %s is %s); let the agent read the parts it needs with its tools instead", size, what, humanSize(limit))
	}
	if st.Size() > limit {
		return nil, "", false, tooLarge(humanSize(st.Size()))
	}
	rest, over, err := fsx.ReadAtMost(f, limit-int64(n))
	if err != nil {
		return nil, "", false, err
	}
	if over {
		return nil, "", false, tooLarge("more than " + humanSize(limit))
	}
	return append(head, rest...), mime, isImage, nil
}

// humanSize writes a byte count the way the limits are documented.
func humanSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
