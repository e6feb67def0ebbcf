package session

import (
	"encoding/json"
	"fmt"
)

// Report is the result of Check.
type Report struct {
	Path     string
	Header   *Header
	Entries  int
	Problems []Problem
}

// Sound reports whether the file has no errors (warnings allowed).
func (r *Report) Sound() bool {
	for _, p := range r.Problems {
		if p.Severity == Error {
			return false
		}
	}
	return true
}

// Check validates every line of a session file and its tree: JSON syntax
// of every record, message bodies, parent links and duplicate ids. It
// never modifies the file (an old version is migrated in memory only).
// The error is for files that cannot be read as a session at all.
func Check(path string) (*Report, error) {
	data, err := readSessionFile(path)
	if err != nil {
		return nil, err
	}
	fd, err := parseSession(path, data)
	if err != nil {
		return nil, err
	}
	if fd.header == nil {
		return nil, fmt.Errorf("%w: %s is empty", ErrNotSession, path)
	}
	r := &Report{Path: path, Header: fd.header, Entries: len(fd.entries), Problems: fd.problems}
	if !json.Valid(fd.header.raw) {
		r.Problems = append(r.Problems, Problem{path, 1, Error, "session header is not valid JSON"})
	}
	for _, e := range fd.entries {
		if !json.Valid(e.raw) {
			r.Problems = append(r.Problems, Problem{path, e.Line, Error, fmt.Sprintf("entry %s is not valid JSON", e.ID)})
			continue
		}
		if _, err := e.Message(); err != nil {
			r.Problems = append(r.Problems, Problem{path, e.Line, Error, "bad message: " + err.Error()})
		}
	}
	sortProblems(r.Problems)
	return r, nil
}
