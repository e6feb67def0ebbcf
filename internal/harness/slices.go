package harness

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Small-slice signal parameters the settings do not expose.
const (
	fileGrowthLines  = 200
	gitTimeout       = 5 * time.Second
	maxUntrackedScan = 500
	maxUntrackedSize = 2 << 20
)

// WorkspaceProbe measures the workspace for the small-slice signals.
type WorkspaceProbe interface {
	// ChangedLines returns changed lines per path against the last commit:
	// added plus deleted lines of tracked files, all lines of untracked ones.
	// ok is false when it cannot tell (not a repository, git missing).
	ChangedLines(ctx context.Context) (lines map[string]int, ok bool)
	// FileLines returns a file's line count; ok is false when it does not
	// exist or cannot be read.
	FileLines(path string) (lines int, ok bool)
}

// GitProbe measures with git in dir; relative paths resolve against dir.
func GitProbe(dir string) WorkspaceProbe { return gitProbe{dir: dir} }

type gitProbe struct{ dir string }

func (g gitProbe) git(ctx context.Context, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return out, nil
}

func (g gitProbe) ChangedLines(ctx context.Context) (map[string]int, bool) {
	out, err := g.git(ctx, "diff", "--numstat", "HEAD", "--")
	if err != nil {
		return nil, false
	}
	lines := map[string]int{}
	for _, row := range strings.Split(string(out), "\n") {
		f := strings.SplitN(row, "\t", 3)
		if len(f) != 3 || f[0] == "-" || f[1] == "-" { // binary
			continue
		}
		a, err1 := strconv.Atoi(f[0])
		d, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil {
			lines[f[2]] += a + d
		}
	}
	untracked, err := g.git(ctx, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, false
	}
	for i, p := range strings.Split(string(untracked), "\x00") {
		if p == "" || i >= maxUntrackedScan {
			continue
		}
		if n, ok := countLines(filepath.Join(g.dir, p), maxUntrackedSize); ok {
			lines[p] += n
		}
	}
	return lines, true
}

func (g gitProbe) FileLines(path string) (int, bool) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(g.dir, path)
	}
	return countLines(path, -1)
}

// countLines counts lines (a final line without newline counts). Files over
// limit bytes (limit >= 0) are not counted.
func countLines(path string, limit int64) (int, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() || (limit >= 0 && st.Size() > limit) {
		return 0, false
	}
	r := bufio.NewReaderSize(f, 64<<10)
	buf := make([]byte, 64<<10)
	n, last := 0, byte('\n')
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, false
		}
	}
	if last != '\n' {
		n++
	}
	return n, true
}

// OversizedFile is a file that crossed (or grew past) maxFileLines.
type OversizedFile struct {
	Path  string `json:"path"`
	Lines int    `json:"lines"`
}

// sliceState holds the change-size and file-growth signals of one request.
type sliceState struct {
	probe               WorkspaceProbe
	maxChanged, maxFile int
	baseline            map[string]int
	baselineTaken       bool
	unavailable         bool // change size cannot be measured: off for the session
	changedLines, files int
	before              map[string]fileBefore // callID \x00 path
	oversized           []OversizedFile
	generation          int
	measuring           chan struct{} // closed when the latest measurement lands
}

type fileBefore struct {
	lines int
	ok    bool
}

func (s *sliceState) begin() {
	s.baseline, s.baselineTaken = nil, false
	s.changedLines, s.files = 0, 0
	s.before = nil
	s.oversized = nil
	s.generation++
	s.measuring = nil
}

func (s *sliceState) delta(current map[string]int) (lines, files int) {
	seen := map[string]bool{}
	add := func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		d := current[p] - s.baseline[p]
		if d < 0 {
			d = -d
		}
		if d != 0 {
			lines += d
			files++
		}
	}
	for p := range s.baseline {
		add(p)
	}
	for p := range current {
		add(p)
	}
	return lines, files
}

func (s *sliceState) fileGrew(path string, before fileBefore, after int) {
	idx := -1
	for i, o := range s.oversized {
		if o.Path == path {
			idx = i
		}
	}
	if after <= s.maxFile {
		if idx >= 0 {
			s.oversized = append(s.oversized[:idx:idx], s.oversized[idx+1:]...)
		}
		return
	}
	// New, crossed the guideline, or grew substantially while over it.
	if !before.ok || before.lines <= s.maxFile || after-before.lines >= fileGrowthLines {
		if idx >= 0 {
			s.oversized[idx].Lines = after
		} else {
			s.oversized = append(s.oversized, OversizedFile{Path: path, Lines: after})
		}
	}
}

func (s *sliceState) render() string {
	var lines []string
	if s.maxChanged > 0 && s.changedLines > s.maxChanged {
		lines = append(lines, fmt.Sprintf("This request has changed about %d lines in %d files (guideline: %d). Verify and report this slice before starting more, and propose how to split the rest.",
			s.changedLines, s.files, s.maxChanged))
	}
	for _, o := range s.oversized {
		lines = append(lines, fmt.Sprintf("%s now has %d lines (guideline: %d). Before adding more to it, extract a cohesive part into its own module.",
			o.Path, o.Lines, s.maxFile))
	}
	return strings.Join(lines, "\n")
}
