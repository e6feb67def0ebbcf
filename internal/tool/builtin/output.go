package builtin

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"unicode/utf8"

	"github.com/relay-agent/relay/internal/shell"
	"github.com/relay-agent/relay/internal/tool"
)

// maxSpillBytes caps a full-output file: past it the file keeps the head
// and the last spillTailBytes of the output, with a marker in between.
var maxSpillBytes = 64 << 20

const spillTailBytes = 1 << 20

// spillFiles are the full-output files of this process. The model was told
// their paths, so they stay until RemoveOutputFiles at exit.
var spillFiles struct {
	sync.Mutex
	paths []string
}

// RemoveOutputFiles deletes the full-output files (relay-bash-*.log) this
// process wrote. The CLI calls it at exit.
func RemoveOutputFiles() {
	spillFiles.Lock()
	defer spillFiles.Unlock()
	for _, p := range spillFiles.paths {
		_ = os.Remove(p)
	}
	spillFiles.paths = nil
}

// outputAccumulator collects streamed command output with bounded memory:
// it sanitizes the stream, keeps a rolling tail for display, counts lines
// and bytes, and once the output is over the limits spills the full raw
// output to a temp file (prefix-*.log), up to maxSpillBytes.
type outputAccumulator struct {
	mu         sync.Mutex
	limits     tool.Limits
	rolling    int
	tempDir    string
	prefix     string
	san        shell.Sanitizer
	scratch    []byte
	tail       []byte
	tailCut    bool // tail starts mid-line (older bytes were dropped)
	total      int  // sanitized bytes
	lines      int  // completed lines
	curLine    int  // bytes of the open (last) line
	lastDone   int  // bytes of the last completed line that is not empty
	lastDoneNo int  // its line number
	rawBytes   int
	raw        [][]byte
	file       *os.File
	path       string
	fileErr    error
	fileSize   int    // bytes written to file
	omitted    int    // raw bytes past the file's head budget
	rawTail    []byte // the last raw bytes once the file's head is full
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
		// the last completed line that is not empty, scanning back
		for end, no := last, o.lines; no > o.lines-n; no-- {
			prev := bytes.LastIndexByte(clean[:end], '\n')
			l := end - prev - 1
			if prev < 0 {
				l = o.curLine + end
			}
			if l > 0 {
				o.lastDone, o.lastDoneNo = l, no
				break
			}
			end = prev
		}
		o.curLine = len(clean) - last - 1
	} else {
		o.curLine += len(clean)
	}
	if o.file != nil || o.overLimits() {
		o.ensureFile()
		o.spill(p)
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
	spillFiles.Lock()
	spillFiles.paths = append(spillFiles.paths, o.path)
	spillFiles.Unlock()
	for _, c := range o.raw {
		o.spill(c)
	}
	o.raw = nil
}

// spill writes raw output to the file while it is under its head budget
// and keeps the rest's last spillTailBytes, which close appends.
func (o *outputAccumulator) spill(p []byte) {
	if o.file == nil {
		return
	}
	if room := maxSpillBytes - spillTailBytes - o.fileSize; room > 0 {
		n := min(room, len(p))
		_, _ = o.file.Write(p[:n])
		o.fileSize += n
		p = p[n:]
	}
	if len(p) == 0 {
		return
	}
	o.omitted += len(p)
	o.rawTail = append(o.rawTail, p...)
	if len(o.rawTail) > 2*spillTailBytes {
		o.rawTail = append(o.rawTail[:0], o.rawTail[len(o.rawTail)-spillTailBytes:]...)
	}
}

// snapshot is the display text (tail-truncated), its truncation facts and
// the full output path when the output was spilled.
func (o *outputAccumulator) snapshot() (tool.Truncation, string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	text := o.tail
	if o.tailCut {
		// The tail starts inside a line: drop that fragment, unless it is
		// the tail of the last line (only a final newline follows it).
		if i := bytes.IndexByte(text, '\n'); i >= 0 && len(bytes.TrimRight(text[i:], "\n")) > 0 {
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

// lastLine is the size and number of the last line of output that is not
// empty (the open one, or a completed one when only newlines follow it).
func (o *outputAccumulator) lastLine() (size, number int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.curLine > 0 {
		return o.curLine, o.lines + 1
	}
	return o.lastDone, o.lastDoneNo
}

// close flushes and closes the spill file.
func (o *outputAccumulator) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.san.Flush()
	if o.file != nil {
		if o.omitted > 0 {
			tail := o.rawTail[max(0, len(o.rawTail)-spillTailBytes):]
			fmt.Fprintf(o.file, "\n\n[relay: %d bytes of output omitted here; this file keeps the first %s and the last %s]\n\n",
				o.omitted-len(tail), tool.FormatSize(o.fileSize), tool.FormatSize(len(tail)))
			_, _ = o.file.Write(tail)
			o.rawTail = nil
		}
		_ = o.file.Close()
		o.file = nil
	}
}
