package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/google/uuid"
	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/jsonx"
)

// migrateRecords brings the records of a v1 or v2 file to v3, editing only
// the members that change so everything else survives byte for byte:
//   - v1 -> v2: entries form a linear chain; each gets an id and parentId,
//     and a compaction's firstKeptEntryIndex becomes firstKeptEntryId;
//   - v2 -> v3: the message role "hookMessage" becomes "custom".
//
// Corrupt records are kept verbatim (they stay corrupt and are reported).
// The header is updated in place to version 3.
func migrateRecords(h *Header, body []record) []record {
	out := make([]record, len(body))
	copy(out, body)
	if h.Version < 2 {
		// Index i of the original file's parsed records (header = 0) maps to
		// the id given to that record, for firstKeptEntryIndex.
		ids := make(map[string]bool, len(out))
		byIndex := make([]string, len(out)+1)
		for i, r := range out {
			if r.err != nil {
				continue
			}
			id := newEntryID(ids)
			ids[id] = true
			byIndex[i+1] = id
		}
		prev := "null"
		for i, r := range out {
			if r.err != nil {
				continue
			}
			id := byIndex[i+1]
			set := map[string][]byte{"id": quote(id), "parentId": []byte(prev)}
			order := []string{"id", "parentId"}
			var drop []string
			if t, _ := jsonx.FindString(r.b, r.ms, "type"); t == TypeCompaction {
				if v, ok := jsonx.Find(r.b, r.ms, "firstKeptEntryIndex"); ok {
					drop = append(drop, "firstKeptEntryIndex")
					if n, err := strconv.Atoi(string(v)); err == nil && n >= 1 && n < len(byIndex) && byIndex[n] != "" {
						set["firstKeptEntryId"] = quote(byIndex[n])
						order = append(order, "firstKeptEntryId")
					}
				}
			}
			out[i] = rescan(r, jsonx.Rewrite(r.b, r.ms, drop, set, order))
			prev = string(quote(id))
		}
	}
	if h.Version < 3 {
		for i, r := range out {
			if r.err != nil {
				continue
			}
			if t, _ := jsonx.FindString(r.b, r.ms, "type"); t != TypeMessage {
				continue
			}
			for _, m := range r.ms {
				if m.Key != "message" {
					continue
				}
				mv := r.b[m.ValStart:m.ValEnd]
				mms, err := jsonx.Members(mv)
				if err != nil {
					break
				}
				if role, _ := jsonx.FindString(mv, mms, "role"); role != "hookMessage" {
					break
				}
				newMsg := jsonx.Rewrite(mv, mms, nil, map[string][]byte{"role": quote("custom")}, nil)
				out[i] = rescan(r, jsonx.Rewrite(r.b, r.ms, nil, map[string][]byte{"message": newMsg}, nil))
			}
		}
	}
	hms, _ := jsonx.Members(h.raw)
	h.raw = jsonx.Rewrite(h.raw, hms, nil, map[string][]byte{"version": []byte(strconv.Itoa(CurrentVersion))}, []string{"version"})
	h.Version = CurrentVersion
	return out
}

func rescan(r record, b []byte) record {
	ms, err := jsonx.Members(b)
	return record{line: r.line, b: b, ms: ms, err: err}
}

func quote(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// randomID yields candidate entry ids; tests replace it for stable goldens.
var randomID = func() string { return uuid.NewString()[:8] }

// newEntryID returns 8 hex chars not in taken (a full UUID after 100
// collisions, as the original does).
func newEntryID(taken map[string]bool) string {
	for range 100 {
		id := randomID()
		if !taken[id] {
			return id
		}
	}
	return uuid.NewString()
}

// writeFileAtomic replaces path with data: a temp file beside it, fsync,
// rename over, fsync of the directory. A crash at any point leaves either
// the old file or the new one, never half of one. A symbolic link is
// written through (its target changes, the link stays).
func writeFileAtomic(path string, data []byte) error {
	if err := fsx.WriteFileAtomic(path, data, 0o600); err != nil {
		return fmt.Errorf("rewrite session: %w", err)
	}
	return nil
}

// rewriteLines returns data with the LF-separated lines numbered in changed
// (1-based) replaced; every other byte, including lines that are not
// records (a stray first line, NUL residue, a torn tail), stays in place.
func rewriteLines(data []byte, changed map[int][]byte) []byte {
	out := make([]byte, 0, len(data)+len(data)/16)
	line := 0
	for start := 0; start < len(data); {
		line++
		end := bytes.IndexByte(data[start:], '\n')
		next := len(data)
		if end < 0 {
			end = len(data)
		} else {
			end += start
			next = end + 1
		}
		if b, ok := changed[line]; ok {
			out = append(out, b...)
		} else {
			out = append(out, data[start:end]...)
		}
		if end < len(data) {
			out = append(out, '\n')
		}
		start = next
	}
	return out
}
