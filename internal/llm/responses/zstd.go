package responses

import (
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/relay-agent/relay/internal/llm"
)

// The Codex backend takes zstd-compressed request bodies on its SSE
// endpoint, as the official Codex client sends them; the original
// compresses at level 3. Long conversations shrink several times over on
// the upload. Websocket frames stay uncompressed (as the original's).
var zstdBody = &llm.BodyEncoding{Name: "zstd", Encode: encodeZstd}

// zstdEncoder is shared: EncodeAll is safe for concurrent use, and the
// encoder's tables are worth keeping between requests.
var zstdEncoder = sync.OnceValues(func() (*zstd.Encoder, error) {
	return zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(3)), zstd.WithEncoderConcurrency(2))
})

func encodeZstd(body []byte) ([]byte, error) {
	enc, err := zstdEncoder()
	if err != nil {
		return nil, err
	}
	return enc.EncodeAll(body, make([]byte, 0, len(body)/4+64)), nil
}
