package llmtest

import (
	"fmt"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// maxDecodedBody bounds a decompressed request body (a zstd frame can
// claim any size).
const maxDecodedBody = 256 << 20

// decodeBody undoes a request's Content-Encoding; the fake serves the
// encodings relay's clients send (zstd, for the Codex backend).
func decodeBody(encoding string, raw []byte) ([]byte, error) {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
		return raw, nil
	case "zstd":
		dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxDecodedBody), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return raw, err
		}
		defer dec.Close()
		out, err := dec.DecodeAll(raw, nil)
		if err != nil {
			return raw, fmt.Errorf("bad zstd request body: %w", err)
		}
		return out, nil
	}
	return raw, fmt.Errorf("unsupported Content-Encoding %q", encoding)
}
