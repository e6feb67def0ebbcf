package laya

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Dataset sources.
const (
	SourceSession   = "session"
	SourceSynthetic = "synthetic"
	SourceHarness   = "harness"
)

// DatasetRow is one training exercise of dataset.jsonl.
type DatasetRow struct {
	ID          string         `json:"id"`
	State       RowState       `json:"state"`
	Expected    map[string]any `json:"expected"`
	Source      string         `json:"source"`
	Split       string         `json:"split,omitempty"`
	Session     string         `json:"session,omitempty"`
	LabelSource string         `json:"label_source,omitempty"`
	Note        string         `json:"note,omitempty"`
	Lesson      string         `json:"lesson,omitempty"`
	Created     string         `json:"created,omitempty"`
}

// RowState is the classifier input of an exercise.
type RowState struct {
	Request string `json:"request"`
}

// DatasetPath is the dataset under a Laya home (<agentDir>/laya).
func DatasetPath(home string) string {
	return filepath.Join(home, "training", "data", "dataset.jsonl")
}

// ReadDataset reads a JSONL dataset; unparsable lines are skipped. A
// missing file is an empty dataset.
func ReadDataset(path string) ([]DatasetRow, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rows []DatasetRow
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var r DatasetRow
		if json.Unmarshal(line, &r) == nil {
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// WriteJSONL writes rows to path atomically (temp file + rename).
func WriteJSONL[T any](path string, rows []T) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	for _, r := range rows {
		line, err := marshalJSON(r)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// requestKey is the merge key of a request: trimmed, lowercased,
// whitespace collapsed.
func requestKey(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// Exercise is one labeled session task to save.
type Exercise struct {
	Request string
	Labels  map[string]any
	Note    string
	Lesson  string
	Session string
}

// MergeResult counts what a merge did.
type MergeResult struct {
	Added, Updated, SessionTasks int
}

// MergeExercises adds labeled tasks to the dataset at path: a request
// learned again replaces its labels (and keeps its id); new ids continue
// after the highest sNNNNN. A missing dataset is first seeded with the
// synthetic exercises.
func MergeExercises(path string, ex []Exercise, now time.Time) (MergeResult, error) {
	rows, err := ReadDataset(path)
	if err != nil {
		return MergeResult{}, err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		rows = SeedRows(DefaultSeedCount)
	}
	index := map[string]int{}
	next := 0
	for i, r := range rows {
		index[requestKey(r.State.Request)] = i
		if strings.HasPrefix(r.ID, "s") {
			if n, err := strconv.Atoi(r.ID[1:]); err == nil && n > next {
				next = n
			}
		}
	}
	var res MergeResult
	for _, e := range ex {
		row := DatasetRow{State: RowState{Request: e.Request}, Expected: e.Labels, Source: SourceSession, Split: "train",
			Session: e.Session, LabelSource: "agent", Note: e.Note, Lesson: e.Lesson, Created: now.UTC().Format(time.RFC3339)}
		k := requestKey(e.Request)
		if i, ok := index[k]; ok {
			row.ID = rows[i].ID
			rows[i] = row
			res.Updated++
			continue
		}
		next++
		row.ID = fmt.Sprintf("s%05d", next)
		index[k] = len(rows)
		rows = append(rows, row)
		res.Added++
	}
	for _, r := range rows {
		if r.Source == SourceSession {
			res.SessionTasks++
		}
	}
	return res, WriteJSONL(path, rows)
}
