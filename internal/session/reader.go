package session

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"sort"
	"sync"

	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/jsonx"
)

// Severity of a Problem found while reading a session file.
type Severity int

const (
	// Warning: recoverable crash residue (torn final record, NUL padding).
	Warning Severity = iota
	// Error: a corrupt record in the middle of the file, a broken parent
	// link or a duplicate id. The rest of the file is still read.
	Error
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Problem is one finding of the tolerant reader, with its line number.
type Problem struct {
	Path     string
	Line     int
	Severity Severity
	Msg      string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.Path, p.Line, p.Severity, p.Msg)
}

// ErrNotSession reports a file that is not a relay session.
var ErrNotSession = errors.New("not a relay session")

// ErrNewerVersion reports a session written by a newer relay.
var ErrNewerVersion = errors.New("session version is newer than this relay supports")

// fileData is a parsed session file.
type fileData struct {
	path     string
	header   *Header
	entries  []*Entry
	problems []Problem
	// endsClean is false when the file's last byte is not LF, so the next
	// append must start with one to begin a fresh line.
	endsClean bool
	// migrated is the version the file had before it was migrated to v3
	// (0 when no migration ran).
	migratedFrom int
	// changed maps the line numbers of a migrated file's rewritten records
	// (the header included) to their new bytes, to write back in place.
	changed map[int][]byte
}

// record is one non-blank line of a file.
type record struct {
	line int
	b    []byte
	ms   []jsonx.Member
	err  error
}

// splitRecords splits data on LF only (U+2028 and friends are valid inside
// JSON strings) and scans every line's structure. Lines of any length are
// fine: data is one buffer and records are subslices of it. Large files are
// split at line boundaries and scanned on every core.
func splitRecords(path string, data []byte) (recs []record, problems []Problem, endsClean bool, torn []byte) {
	endsClean = len(data) == 0 || data[len(data)-1] == '\n'
	parts := chunkAtLines(data, runtime.GOMAXPROCS(0), 1<<20)
	type result struct {
		recs     []record
		problems []Problem
		lines    int
		torn     []byte
	}
	results := make([]result, len(parts))
	parallel(len(parts), func(i int) {
		r := &results[i]
		r.recs, r.problems, r.lines, r.torn = splitChunk(path, parts[i], i == len(parts)-1 && !endsClean)
	})
	offset := 0
	for _, r := range results {
		for _, rec := range r.recs {
			rec.line += offset
			recs = append(recs, rec)
		}
		for _, p := range r.problems {
			p.Line += offset
			problems = append(problems, p)
		}
		if r.torn != nil {
			torn = r.torn
		}
		offset += r.lines
	}
	return recs, problems, endsClean, torn
}

// chunkAtLines cuts data into at most n parts of at least minSize bytes,
// each ending just after an LF (the last one at the end of data).
func chunkAtLines(data []byte, n, minSize int) [][]byte {
	if n < 1 || len(data) < 2*minSize {
		return [][]byte{data}
	}
	n = min(n, len(data)/minSize)
	var parts [][]byte
	start := 0
	for k := 1; k < n && start < len(data); k++ {
		cut := max(len(data)*k/n, start)
		i := bytes.IndexByte(data[cut:], '\n')
		if i < 0 {
			break
		}
		end := cut + i + 1
		parts = append(parts, data[start:end])
		start = end
	}
	return append(parts, data[start:])
}

// parallel runs fn(0..n-1) on up to GOMAXPROCS goroutines.
func parallel(n int, fn func(i int)) {
	if n == 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(i)
		}()
	}
	wg.Wait()
}

// splitChunk splits one part of a file; line numbers are relative to it.
// tornOK marks the part holding the end of a file that does not end in LF.
func splitChunk(path string, data []byte, tornOK bool) (recs []record, problems []Problem, lines int, torn []byte) {
	recs = make([]record, 0, bytes.Count(data, []byte{'\n'})+1)
	for start := 0; start < len(data); {
		lines++
		end := bytes.IndexByte(data[start:], '\n')
		last := end < 0
		if last {
			end = len(data)
		} else {
			end += start
		}
		raw := data[start:end]
		start = end + 1
		b, hadNUL := trimRecord(raw)
		if hadNUL {
			problems = append(problems, Problem{path, lines, Warning, "NUL bytes (crash residue) skipped"})
		}
		if len(b) == 0 {
			continue
		}
		ms, err := jsonx.Members(b)
		if err != nil && last && tornOK {
			problems = append(problems, Problem{path, lines, Warning, "incomplete final record (torn write) skipped: " + err.Error()})
			torn = b
			continue
		}
		recs = append(recs, record{line: lines, b: b, ms: ms, err: err})
	}
	return recs, problems, lines, torn
}

// trimRecord strips whitespace, CR and the NUL padding a crash can leave
// at the end of a file (or before a record appended after such a crash).
// Raw NUL bytes are never valid JSON, so any of them is crash residue.
func trimRecord(b []byte) ([]byte, bool) {
	hadNUL := bytes.IndexByte(b, 0) >= 0
	return bytes.Trim(b, " \t\r\x00"), hadNUL
}

// readSessionFile reads and parses path. Missing files, directories and
// files that are not sessions get clear errors naming the file.
func readSessionFile(path string) ([]byte, error) {
	data, err := fsx.ReadFile(path, MaxFileSize)
	if err != nil {
		return nil, sessionReadError(path, err)
	}
	return data, nil
}

// MaxFileSize bounds the session files relay reads whole (1 GiB, far
// beyond what compaction lets a session grow to).
const MaxFileSize = 1 << 30

// sessionReadError words a failure to open or read a session file.
func sessionReadError(path string, err error) error {
	var nr *fsx.NotRegularError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("session file %s does not exist", path)
	case errors.As(err, &nr):
		return fmt.Errorf("session file %s is a %s, not a regular file", path, nr.Kind)
	case errors.Is(err, fsx.ErrTooLarge):
		return fmt.Errorf("session %w", err)
	}
	return fmt.Errorf("read session %s: %w", path, err)
}

// parseSession parses a whole session file held in data. An empty (or
// blank) file yields a nil header and no error. data must be a heap buffer
// that is never modified afterwards: the entries' records, and the strings
// of their decoded messages, are views of it.
func parseSession(path string, data []byte) (*fileData, error) {
	recs, problems, endsClean, _ := splitRecords(path, data)
	fd := &fileData{path: path, problems: problems, endsClean: endsClean}
	hi := -1
	for i, r := range recs {
		if r.err != nil {
			fd.problems = append(fd.problems, Problem{path, r.line, Error, "corrupt record: " + r.err.Error()})
			continue
		}
		h, ok := parseHeader(r.b, r.ms)
		if !ok {
			t, _ := jsonx.FindString(r.b, r.ms, "type")
			if t == "" {
				t = "untyped"
			}
			return nil, fmt.Errorf("%w: %s line %d: first record is a %q record, not a session header", ErrNotSession, path, r.line, t)
		}
		fd.header = h
		hi = i
		break
	}
	if fd.header == nil {
		if len(recs) == 0 {
			return fd, nil
		}
		why := "no readable session header"
		if recs[0].err != nil {
			why += " (" + recs[0].err.Error() + ")"
		}
		return nil, fmt.Errorf("%w: %s line %d: %s", ErrNotSession, path, recs[0].line, why)
	}
	if fd.header.Version > CurrentVersion {
		return nil, fmt.Errorf("%w: %s line %d: version %d (this relay reads up to %d); upgrade relay to open it", ErrNewerVersion, path, recs[hi].line, fd.header.Version, CurrentVersion)
	}
	body := recs[hi+1:]
	if fd.header.Version < CurrentVersion {
		fd.migratedFrom = fd.header.Version
		old := body
		body = migrateRecords(fd.header, body)
		// Only the rewritten records change on disk: lines that could not
		// be parsed, stray lines before the header and a torn tail stay.
		fd.changed = map[int][]byte{recs[hi].line: fd.header.raw}
		for i, r := range body {
			if !bytes.Equal(r.b, old[i].b) {
				fd.changed[r.line] = r.b
			}
		}
	}
	// Entries are built in parallel (each record is independent), then
	// collected in file order.
	built := make([]*Entry, len(body))
	probs := make([]*Problem, len(body))
	chunks := min(runtime.GOMAXPROCS(0), max(len(body)/2048, 1))
	parallel(chunks, func(c int) {
		lo, hi := len(body)*c/chunks, len(body)*(c+1)/chunks
		for i := lo; i < hi; i++ {
			r := body[i]
			switch {
			case r.err != nil:
				probs[i] = &Problem{path, r.line, Error, "corrupt record: " + r.err.Error()}
			case isHeaderRecord(r):
				probs[i] = &Problem{path, r.line, Error, "unexpected second session header skipped"}
			default:
				e, err := entryFromMembers(r.b, r.ms, r.line)
				if err != nil {
					probs[i] = &Problem{path, r.line, Error, err.Error()}
				} else {
					e.shared = true
					built[i] = e
					if e.bodyErr != nil {
						probs[i] = &Problem{path, r.line, Error, e.bodyErr.Error()}
					}
				}
			}
		}
	})
	fd.entries = make([]*Entry, 0, len(body))
	for i := range body {
		if probs[i] != nil {
			fd.problems = append(fd.problems, *probs[i])
		}
		if built[i] != nil {
			fd.entries = append(fd.entries, built[i])
		}
	}
	fd.problems = append(fd.problems, treeProblems(path, fd.entries)...)
	sortProblems(fd.problems)
	return fd, nil
}

// treeProblems reports duplicate ids and parent ids that name no entry.
func treeProblems(path string, entries []*Entry) []Problem {
	var out []Problem
	first := make(map[string]int, len(entries))
	for _, e := range entries {
		if l, dup := first[e.ID]; dup {
			out = append(out, Problem{path, e.Line, Error, fmt.Sprintf("duplicate entry id %q (first at line %d); the later entry wins", e.ID, l)})
			continue
		}
		first[e.ID] = e.Line
	}
	for _, e := range entries {
		if e.ParentID != "" {
			if _, ok := first[e.ParentID]; !ok {
				out = append(out, Problem{path, e.Line, Error, fmt.Sprintf("entry %q has unknown parent %q; treated as a root", e.ID, e.ParentID)})
			}
		}
	}
	return out
}

func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Line < ps[j].Line })
}

func isHeaderRecord(r record) bool {
	t, _ := jsonx.FindString(r.b, r.ms, "type")
	return t == TypeSession
}
