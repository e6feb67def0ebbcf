// Package jsonc reads the JSON-with-comments files relay's configuration
// uses: it strips comments and trailing commas without moving any byte, so
// encoding/json offsets still name the user's line and column, and it decodes
// objects with their member order kept.
package jsonc

import "bytes"

var bom = []byte("\xef\xbb\xbf")

// Strip returns a copy of data with a leading UTF-8 byte order mark removed,
// // and /* */ comments outside string literals blanked to spaces (newlines
// inside block comments are kept) and trailing commas before } or ] blanked.
// Every other byte stays at its offset, so an offset into the result is the
// same line and column in the original text after the BOM. An unterminated
// block comment blanks to the end of the input; the decoder then reports the
// missing value, so Strip itself never fails.
func Strip(data []byte) []byte {
	data = bytes.TrimPrefix(data, bom)
	out := make([]byte, len(data))
	copy(out, data)
	lastComma := -1 // index of a comma not yet followed by a value
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case c == '"':
			lastComma = -1
			for i++; i < len(out); i++ {
				if out[i] == '\\' {
					i++
					continue
				}
				if out[i] == '"' {
					break
				}
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			for i += 2; i < len(out); i++ {
				if out[i] == '*' && i+1 < len(out) && out[i+1] == '/' {
					out[i], out[i+1] = ' ', ' '
					i++
					break
				}
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
		case c == ',':
			lastComma = i
		case c == '}' || c == ']':
			if lastComma >= 0 {
				out[lastComma] = ' '
			}
			lastComma = -1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			lastComma = -1
		}
	}
	return out
}

// TrimBOM drops a leading UTF-8 byte order mark, for callers that read
// strict JSON but still accept files saved by editors that add one.
func TrimBOM(data []byte) []byte { return bytes.TrimPrefix(data, bom) }

// LineCol turns a byte offset into data into 1-based line and column
// numbers; the column counts bytes. Offsets past the end clamp to it.
func LineCol(data []byte, off int64) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
