package llm

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

// BodyEncoding compresses a request body on the wire (Content-Encoding:
// Name). It is applied after the payload hooks saw the body as JSON; a
// failing Encode leaves the body as it is.
type BodyEncoding struct {
	Name   string
	Encode func(body []byte) ([]byte, error)
}

type bodyEncodingKey struct{}

// PostSSEEncoded is PostSSE with the body compressed by enc (nil: as
// PostSSE).
func PostSSEEncoded(ctx context.Context, req *Request, url string, body any, headers func(http.Header), enc *BodyEncoding) (*http.Response, *ProviderError) {
	if enc != nil {
		ctx = context.WithValue(ctx, bodyEncodingKey{}, enc)
	}
	return PostSSE(ctx, req, url, body, headers)
}

// encodeBody compresses hr's body with the encoding its context carries.
func encodeBody(hr *http.Request) error {
	enc, _ := hr.Context().Value(bodyEncodingKey{}).(*BodyEncoding)
	if enc == nil || hr.Body == nil {
		return nil
	}
	plain, err := io.ReadAll(hr.Body)
	hr.Body.Close()
	if err != nil {
		return err
	}
	out, err := enc.Encode(plain)
	if err != nil {
		out = plain // sent as it is, like a client without the codec
	} else {
		hr.Header.Set("Content-Encoding", enc.Name)
	}
	hr.Body = io.NopCloser(bytes.NewReader(out))
	hr.ContentLength = int64(len(out))
	hr.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(out)), nil }
	return nil
}
