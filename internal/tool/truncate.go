package tool

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Shared output limits of the built-in tools.
const (
	DefaultMaxLines   = 2000
	DefaultMaxBytes   = 50 * 1024
	GrepMaxLineLength = 500 // characters per grep output line
)

// Truncation describes how an output was cut. It marshals to the details
// object the session format records:
// {content, truncated, truncatedBy, totalLines, totalBytes, outputLines,
// outputBytes, lastLinePartial, firstLineExceedsLimit, maxLines, maxBytes}.
type Truncation struct {
	Content               string
	Truncated             bool
	TruncatedBy           string // "lines", "bytes" or "" (null) when not truncated
	TotalLines            int
	TotalBytes            int
	OutputLines           int
	OutputBytes           int
	LastLinePartial       bool
	FirstLineExceedsLimit bool
	MaxLines              int
	MaxBytes              int
}

type truncationWire struct {
	Content               string  `json:"content"`
	Truncated             bool    `json:"truncated"`
	TruncatedBy           *string `json:"truncatedBy"`
	TotalLines            int     `json:"totalLines"`
	TotalBytes            int     `json:"totalBytes"`
	OutputLines           int     `json:"outputLines"`
	OutputBytes           int     `json:"outputBytes"`
	LastLinePartial       bool    `json:"lastLinePartial"`
	FirstLineExceedsLimit bool    `json:"firstLineExceedsLimit"`
	MaxLines              int     `json:"maxLines"`
	MaxBytes              int     `json:"maxBytes"`
}

func (t Truncation) MarshalJSON() ([]byte, error) {
	w := truncationWire{t.Content, t.Truncated, nil, t.TotalLines, t.TotalBytes, t.OutputLines,
		t.OutputBytes, t.LastLinePartial, t.FirstLineExceedsLimit, t.MaxLines, t.MaxBytes}
	if t.TruncatedBy != "" {
		by := t.TruncatedBy
		w.TruncatedBy = &by
	}
	return json.Marshal(w)
}

func (t *Truncation) UnmarshalJSON(data []byte) error {
	var w truncationWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*t = Truncation{Content: w.Content, Truncated: w.Truncated, TotalLines: w.TotalLines,
		TotalBytes: w.TotalBytes, OutputLines: w.OutputLines, OutputBytes: w.OutputBytes,
		LastLinePartial: w.LastLinePartial, FirstLineExceedsLimit: w.FirstLineExceedsLimit,
		MaxLines: w.MaxLines, MaxBytes: w.MaxBytes}
	if w.TruncatedBy != nil {
		t.TruncatedBy = *w.TruncatedBy
	}
	return nil
}

// Limits are the line and byte budgets of a truncation; zero fields take the
// defaults (2000 lines, 50 KiB).
type Limits struct {
	MaxLines int
	MaxBytes int
}

func (l Limits) norm() Limits {
	if l.MaxLines <= 0 {
		l.MaxLines = DefaultMaxLines
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// NoLineLimit is a MaxLines for outputs capped by bytes only.
const NoLineLimit = 1<<53 - 1

// FormatSize renders a byte count as "512B", "50.0KB" or "1.5MB" (one
// decimal, halves rounded up).
func FormatSize(n int) string {
	switch {
	case n < 1024:
		return strconv.Itoa(n) + "B"
	case n < 1024*1024:
		return tenths(int64(n), 1024) + "KB"
	default:
		return tenths(int64(n), 1024*1024) + "MB"
	}
}

func tenths(n, unit int64) string {
	t := (n*10 + unit/2) / unit
	return strconv.FormatInt(t/10, 10) + "." + strconv.FormatInt(t%10, 10)
}

// countLines is len(strings.Split(s, "\n")).
func countLines(s string) int { return strings.Count(s, "\n") + 1 }

func untruncated(content string, l Limits) Truncation {
	n := countLines(content)
	return Truncation{Content: content, TotalLines: n, TotalBytes: len(content),
		OutputLines: n, OutputBytes: len(content), MaxLines: l.MaxLines, MaxBytes: l.MaxBytes}
}

// TruncateHead keeps the first lines of content within the limits. It never
// returns a partial line: when the first line alone is over the byte limit
// the content is empty and FirstLineExceedsLimit is set.
func TruncateHead(content string, lim Limits) Truncation {
	l := lim.norm()
	totalBytes := len(content)
	if totalBytes <= l.MaxBytes && countLines(content) <= l.MaxLines {
		return untruncated(content, l)
	}
	tr := Truncation{Truncated: true, TotalLines: countLines(content), TotalBytes: totalBytes,
		MaxLines: l.MaxLines, MaxBytes: l.MaxBytes}
	first := content
	if i := strings.IndexByte(content, '\n'); i >= 0 {
		first = content[:i]
	}
	if len(first) > l.MaxBytes {
		tr.TruncatedBy = "bytes"
		tr.FirstLineExceedsLimit = true
		return tr
	}
	end, lines, by := 0, 0, "lines"
	for pos := 0; lines < l.MaxLines; {
		i := strings.IndexByte(content[pos:], '\n')
		lineEnd := len(content)
		if i >= 0 {
			lineEnd = pos + i
		}
		if lineEnd > l.MaxBytes {
			by = "bytes"
			break
		}
		end, lines = lineEnd, lines+1
		if i < 0 {
			break
		}
		pos = lineEnd + 1
	}
	tr.Content = content[:end]
	tr.TruncatedBy = by
	tr.OutputLines = lines
	tr.OutputBytes = end
	return tr
}

// TruncateTail keeps the last lines of content within the limits. When the
// final line alone is over the byte limit it keeps that line's tail and sets
// LastLinePartial.
func TruncateTail(content string, lim Limits) Truncation {
	l := lim.norm()
	totalBytes := len(content)
	if totalBytes <= l.MaxBytes && countLines(content) <= l.MaxLines {
		return untruncated(content, l)
	}
	tr := Truncation{Truncated: true, TotalLines: countLines(content), TotalBytes: totalBytes,
		MaxLines: l.MaxLines, MaxBytes: l.MaxBytes}
	start, lines, bytes, by := len(content), 0, 0, "lines"
	sawContent := false // a non-empty line has been kept
	for end := len(content); lines < l.MaxLines; {
		i := strings.LastIndexByte(content[:end], '\n')
		line := content[i+1 : end]
		sep := 0
		if lines > 0 {
			sep = 1
		}
		if bytes+len(line)+sep > l.MaxBytes {
			by = "bytes"
			if !sawContent {
				budget := max(0, l.MaxBytes-bytes-sep)
				cut := len(line) - budget
				for cut < len(line) && !utf8.RuneStart(line[cut]) {
					cut++
				}
				start = i + 1 + cut
				lines++
				tr.LastLinePartial = true
			}
			break
		}
		start, lines, bytes = i+1, lines+1, bytes+len(line)+sep
		if line != "" {
			sawContent = true
		}
		if i < 0 {
			break
		}
		end = i
	}
	tr.Content = content[start:]
	if lines >= l.MaxLines && len(tr.Content) <= l.MaxBytes {
		by = "lines"
	}
	tr.TruncatedBy = by
	tr.OutputLines = lines
	tr.OutputBytes = len(tr.Content)
	return tr
}

// TruncateLine cuts a line to maxChars characters, appending "... [truncated]".
func TruncateLine(line string, maxChars int) (string, bool) {
	if maxChars <= 0 {
		maxChars = GrepMaxLineLength
	}
	if len(line) <= maxChars { // bytes >= runes
		return line, false
	}
	n := 0
	for i := range line {
		if n == maxChars {
			return line[:i] + "... [truncated]", true
		}
		n++
	}
	return line, false
}
