package builtin

import (
	"bytes"
	"os"
	"sync"
	"unicode/utf8"

	"github.com/relay-agent/relay/internal/shell"
	"github.com/relay-agent/relay/internal/tool"
)

// outputAccumulator collects streamed command output with bounded memory:
// it sanitizes the stream, keeps a rolling tail for display, counts lines
// and bytes, and once the output is over the limits spills the full raw
// output to a temp file (prefix-*.log).
type outputAccumulator struct {
	mu       sync.Mutex
	limits   tool.Limits
	rolling  int
	tempDir  string
	prefix   string
	san      shell.Sanitizer
	scratch  []byte
	tail     []byte
	tailCut  bool // tail starts mid-line (older bytes were dropped)
	total    int  // sanitized bytes
	lines    int  // completed lines
	curLine  int  // bytes of the open (last) line
	lastDone int  // bytes of the last completed line
	rawBytes int
	raw      [][]byte
	file     *os.File
	path     string
	fileErr  error
}

func newOutputAccumulator(tempDir, prefix string) *outputAccumulator {
	return &outputAccumulator{
		limits:  tool.Limits{MaxLines: tool.DefaultMaxLines, MaxBytes: tool.DefaultMaxBytes},
		rolling: 2 * tool.DefaultMaxBytes,
		tempDir: tempDir,
		prefix:  prefix,
	}
}

// write adds a raw chunk and returns its sanitized text.
func (o *outputAccumulator) write(p []byte) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.rawBytes += len(p)
	o.scratch = o.san.Clean(o.scratch[:0], p)
	clean := o.scratch
	o.total += len(clean)
	o.tail = append(o.tail, clean...)
	if len(o.tail) > 2*o.rolling {
		start := len(o.tail) - o.rolling
		for start < len(o.tail) && !utf8.RuneStart(o.tail[start]) {
			start++
		}
		o.tailCut = o.tail[start-1] != '\n'
		o.tail = append(o.tail[:0], o.tail[start:]...)
	}
	if n := bytes.Count(clean, []byte{'\n'}); n > 0 {
		o.lines += n
		last := bytes.LastIndexByte(clean, '\n')
		prev := bytes.LastIndexByte(clean[:last], '\n')
		if prev < 0 {
			o.lastDone = o.curLine + last
		} else {
			o.lastDone = last - prev - 1
		}
		o.curLine = len(clean) - last - 1
	} else {
		o.curLine += len(clean)
	}
	if o.file != nil || o.overLimits() {
		o.ensureFile()
		if o.file != nil {
			_, _ = o.file.Write(p)
		}
	} else if len(p) > 0 {
		o.raw = append(o.raw, append([]byte(nil), p...))
	}
	return string(clean)
}

func (o *outputAccumulator) totalLines() int {
	if o.curLine > 0 {
		return o.lines + 1
	}
	return o.lines
}

func (o *outputAccumulator) overLimits() bool {
	return o.rawBytes > o.limits.MaxBytes || o.total > o.limits.MaxBytes || o.totalLines() > o.limits.MaxLines
}

func (o *outputAccumulator) ensureFile() {
	if o.file != nil || o.fileErr != nil || o.path != "" {
		return
	}
	f, err := os.CreateTemp(o.tempDir, o.prefix+"-*.log")
	if err != nil {
		o.fileErr = err
		return
	}
	o.file, o.path = f, f.Name()
	for _, c := range o.raw {
		_, _ = f.Write(c)
	}
	o.raw = nil
}

// snapshot is the display text (tail-truncated), its truncation facts and
// the full output path when the output was spilled.
func (o *outputAccumulator) snapshot() (tool.Truncation, string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	text := o.tail
	if o.tailCut {
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			text = text[i+1:]
		}
	}
	tr := tool.TruncateTail(string(text), o.limits)
	truncated := o.totalLines() > o.limits.MaxLines || o.total > o.limits.MaxBytes
	tr.Truncated = truncated
	switch {
	case !truncated:
		tr.TruncatedBy = ""
	case tr.TruncatedBy == "":
		tr.TruncatedBy = "lines"
		if o.total > o.limits.MaxBytes {
			tr.TruncatedBy = "bytes"
		}
	}
	tr.TotalLines, tr.TotalBytes = o.totalLines(), o.total
	if truncated {
		o.ensureFile()
	}
	return tr, o.path
}

// lastLineBytes is the size of the last line of output (the open one, or
// the last completed one when the output ends with a newline).
func (o *outputAccumulator) lastLineBytes() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.curLine > 0 {
		return o.curLine
	}
	return o.lastDone
}

// close flushes and closes the spill file.
func (o *outputAccumulator) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.san.Flush()
	if o.file != nil {
		_ = o.file.Close()
		o.file = nil
	}
}
