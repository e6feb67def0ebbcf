package bedrock

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// The AWS event-stream framing (application/vnd.amazon.eventstream) of a
// ConverseStream answer. Each message is
//
//	total length (4) | headers length (4) | prelude CRC (4) |
//	headers | payload | message CRC (4)
//
// big-endian, CRC-32 (IEEE) over the prelude and over everything before
// the message CRC. Headers are name length (1), name, value type (1) and a
// typed value; Bedrock sends strings (type 7: length (2) + bytes).

// maxMessage bounds one frame: AWS caps event-stream messages at 16 MiB;
// anything larger is garbage, not a long answer (answers arrive in many
// small frames).
const maxMessage = 16 << 20

const (
	preludeLen = 12
	crcLen     = 4
)

// frame is one decoded message. Its slices alias the decoder's buffer and
// are valid until the next call to next.
type frame struct {
	messageType   string // event | exception | error
	eventType     string // :event-type, or :exception-type for exceptions
	errorCode     string // :error-code of error messages
	errorMessage  string // :error-message of error messages
	payload       []byte
	contentLength int
}

// decoder reads frames from a stream.
type decoder struct {
	r       *bufio.Reader
	buf     []byte
	prelude [preludeLen]byte // here, not on the stack: io.ReadFull would move it to the heap every frame
}

func newDecoder(r io.Reader) *decoder {
	return &decoder{r: bufio.NewReaderSize(r, 32<<10)}
}

// errTruncated is a stream that ends inside a frame.
var errTruncated = errors.New("event stream ended inside a message")

// next reads one frame. io.EOF means the stream ended cleanly between
// frames; other errors are a cut connection (errTruncated wrapping the
// read error) or garbage (a *formatError).
func (d *decoder) next(f *frame) error {
	prelude := d.prelude[:]
	n, err := io.ReadFull(d.r, prelude)
	if err != nil {
		if n == 0 && errors.Is(err, io.EOF) {
			return io.EOF
		}
		return fmt.Errorf("%w: %w", errTruncated, err)
	}
	total := binary.BigEndian.Uint32(prelude[0:4])
	hlen := binary.BigEndian.Uint32(prelude[4:8])
	crc := crc32.ChecksumIEEE(prelude[:8])
	if want := binary.BigEndian.Uint32(prelude[8:12]); crc != want {
		return &formatError{fmt.Sprintf("prelude checksum mismatch (0x%08x, want 0x%08x)", crc, want)}
	}
	if total < preludeLen+crcLen || total > maxMessage {
		return &formatError{fmt.Sprintf("message length %d out of range", total)}
	}
	if uint64(hlen) > uint64(total)-preludeLen-crcLen {
		return &formatError{fmt.Sprintf("headers length %d exceeds message length %d", hlen, total)}
	}
	rest := int(total) - preludeLen
	if cap(d.buf) < rest {
		d.buf = make([]byte, rest, max(rest, 2*cap(d.buf)))
	}
	d.buf = d.buf[:rest]
	if _, err := io.ReadFull(d.r, d.buf); err != nil {
		return fmt.Errorf("%w: %w", errTruncated, err)
	}
	body := d.buf[:rest-crcLen]
	crc = crc32.Update(crc32.Update(crc, crc32.IEEETable, prelude[8:]), crc32.IEEETable, body)
	if want := binary.BigEndian.Uint32(d.buf[rest-crcLen:]); crc != want {
		return &formatError{fmt.Sprintf("message checksum mismatch (0x%08x, want 0x%08x)", crc, want)}
	}
	*f = frame{payload: body[hlen:]}
	return parseHeaders(body[:hlen], f)
}

// formatError is a frame that is not valid event-stream framing.
type formatError struct{ msg string }

func (e *formatError) Error() string { return "event stream: " + e.msg }

// Header value types (only strings carry what we read; the others are
// skipped by their sizes).
const (
	hTrue = iota
	hFalse
	hByte
	hInt16
	hInt32
	hInt64
	hBytes
	hString
	hTimestamp
	hUUID
)

func parseHeaders(h []byte, f *frame) error {
	for len(h) > 0 {
		nl := int(h[0])
		if len(h) < 1+nl+1 {
			return &formatError{"truncated header name"}
		}
		name := h[1 : 1+nl]
		typ := h[1+nl]
		h = h[2+nl:]
		var size int
		switch typ {
		case hTrue, hFalse:
			size = 0
		case hByte:
			size = 1
		case hInt16:
			size = 2
		case hInt32:
			size = 4
		case hInt64, hTimestamp:
			size = 8
		case hUUID:
			size = 16
		case hBytes, hString:
			if len(h) < 2 {
				return &formatError{"truncated header value length"}
			}
			size = int(binary.BigEndian.Uint16(h))
			h = h[2:]
		default:
			return &formatError{fmt.Sprintf("unknown header value type %d", typ)}
		}
		if len(h) < size {
			return &formatError{"truncated header value"}
		}
		if typ == hString {
			v := h[:size]
			switch string(name) {
			case ":message-type":
				f.messageType = intern(v)
			case ":event-type", ":exception-type":
				f.eventType = intern(v)
			case ":error-code":
				f.errorCode = string(v)
			case ":error-message":
				f.errorMessage = string(v)
			}
		}
		h = h[size:]
	}
	return nil
}

// intern returns the common header values without allocating (every
// frame carries them).
func intern(b []byte) string {
	switch string(b) {
	case "event":
		return "event"
	case "contentBlockDelta":
		return "contentBlockDelta"
	case "contentBlockStart":
		return "contentBlockStart"
	case "contentBlockStop":
		return "contentBlockStop"
	case "messageStart":
		return "messageStart"
	case "messageStop":
		return "messageStop"
	case "metadata":
		return "metadata"
	}
	return string(b)
}
