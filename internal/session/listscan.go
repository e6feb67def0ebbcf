package session

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"time"

	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/jsonx"
	"github.com/relay-agent/relay/internal/llm"
)

// scanState is what listing knows about one session file after reading it
// up to ScannedTo (always just after an LF). Session files only grow by
// appends, so a later listing continues from ScannedTo instead of reading
// the file again.
type scanState struct {
	ID           string    `json:"id"`
	Cwd          string    `json:"cwd"`
	Parent       string    `json:"parent,omitempty"`
	Created      time.Time `json:"created"`
	HeadHash     uint64    `json:"headHash"` // FNV-64a of the header line
	Count        int       `json:"count"`
	Name         string    `json:"name,omitempty"`
	FirstMessage string    `json:"firstMessage,omitempty"`
	FirstTries   int       `json:"firstTries,omitempty"` // user messages without text seen
	Activity     time.Time `json:"activity"`
	ScannedTo    int64     `json:"scannedTo"`
	headerSeen   bool
}

const maxFirstTries = 32

// scanFile brings prev (nil = from scratch) up to the end of the file and
// returns the new state. The unterminated tail, if any, is left for later
// (it is either torn or about to be completed).
func scanFile(path string, prev *scanState, size int64) (*scanState, error) {
	f, err := fsx.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &scanState{}
	if prev != nil {
		c := *prev
		s = &c
		s.headerSeen = true
	}
	if s.ScannedTo >= size {
		if !s.headerSeen {
			return nil, fmt.Errorf("%w: %s", ErrNotSession, path)
		}
		return s, nil
	}
	var data []byte
	if s.ScannedTo == 0 {
		d, release, err := mapFile(f, size)
		if err != nil {
			return nil, err
		}
		defer release()
		data = d
	} else {
		data = make([]byte, size-s.ScannedTo)
		if _, err := f.ReadAt(data, s.ScannedTo); err != nil && err != io.EOF {
			return nil, err
		}
	}
	if err := s.scan(path, data); err != nil {
		return nil, err
	}
	if !s.headerSeen {
		return nil, fmt.Errorf("%w: %s", ErrNotSession, path)
	}
	return s, nil
}

// scan processes the complete lines of data, which starts at s.ScannedTo.
func (s *scanState) scan(path string, data []byte) error {
	var lastActivity []byte
	end := bytes.LastIndexByte(data, '\n') + 1
	for start := 0; start < end; {
		i := bytes.IndexByte(data[start:end], '\n')
		line := data[start : start+i]
		start += i + 1
		if !s.headerSeen {
			b, _ := trimRecord(line)
			if len(b) == 0 {
				continue
			}
			ms, err := jsonx.Members(b)
			if err != nil {
				continue // a corrupt record before the header is skipped
			}
			h, ok := parseHeader(b, ms)
			if !ok {
				return fmt.Errorf("%w: %s", ErrNotSession, path)
			}
			s.headerSeen = true
			s.ID, s.Cwd, s.Parent, s.Created = h.ID, h.Cwd, h.ParentSession, parseISO(h.Timestamp)
			hash := fnv.New64a()
			hash.Write(line)
			s.HeadHash = hash.Sum64()
			continue
		}
		switch typ, role := classify(line); typ {
		case TypeMessage:
			if role != llm.RoleSystem {
				// The system prompt is not a message of the
				// conversation; /resume counts what was said.
				s.Count++
			}
			if role == llm.RoleUser || role == llm.RoleAssistant {
				lastActivity = line
				if role == llm.RoleUser && s.FirstMessage == "" && s.FirstTries < maxFirstTries {
					if s.FirstMessage = messageText(line); s.FirstMessage == "" {
						s.FirstTries++
					}
				}
			}
		case TypeSessionInfo:
			s.Name = ""
			b, _ := trimRecord(line)
			if e, err := parseEntry(b, 0); err == nil {
				if si := e.SessionInfo(); si != nil && si.Name != nil {
					s.Name = oneLineName(*si.Name)
				}
			}
		}
	}
	if !s.headerSeen && end > 0 {
		return fmt.Errorf("%w: %s", ErrNotSession, path)
	}
	if lastActivity != nil {
		if t := activityTime(lastActivity); !t.IsZero() {
			s.Activity = t
		}
	}
	s.ScannedTo += int64(end)
	return nil
}

func oneLineName(n string) string { return string(bytes.TrimSpace([]byte(n))) }

func (s *scanState) info(path string, mtime time.Time, _ []byte) *SessionInfo {
	in := &SessionInfo{
		Path:              path,
		ID:                s.ID,
		Cwd:               s.Cwd,
		Name:              s.Name,
		ParentSessionPath: s.Parent,
		Created:           s.Created,
		MessageCount:      s.Count,
		FirstMessage:      s.FirstMessage,
	}
	if in.FirstMessage == "" {
		in.FirstMessage = "(no messages)"
	}
	switch {
	case !s.Activity.IsZero():
		in.Modified = s.Activity
	case !s.Created.IsZero():
		in.Modified = s.Created
	default:
		in.Modified = mtime
	}
	return in
}

var typePrefix = []byte(`{"type":"`)

func readFallback(f *os.File, size int64) ([]byte, func(), error) {
	b, err := readAll(f)
	return b, func() {}, err
}

// headHash hashes the first line of path, to tell an appended-to file from
// a replaced one.
func headHash(path string) (uint64, error) {
	f, err := fsx.OpenRegular(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 0, 4096)
	chunk := make([]byte, 4096)
	for len(buf) < 1<<20 {
		n, err := f.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			h := fnv.New64a()
			h.Write(buf[:i])
			return h.Sum64(), nil
		}
		if err != nil {
			break
		}
	}
	return 0, fmt.Errorf("no header line")
}
