package session

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
)

// Listing 2,000 sessions totalling 2 GB cannot read 2 GB every time. The
// message count and name need every line, so the first listing scans each
// file once (mapped, memchr for line starts) and keeps what it learned in a
// cache under the user cache directory. Session files only grow by appends:
// later listings reuse a file's entry when its size and mtime are unchanged,
// and scan only the appended bytes when it grew with the same header line.
// Any other change rescans the file. The cache is only ever a shortcut; a
// missing or unreadable cache just means a full scan.

// indexDir is where listing caches live ("" disables caching).
var indexDir = func() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "relay", "session-index")
}

const indexVersion = 2 // 2: the system prompt is not counted

// minCachedBytes: stores smaller than this are scanned directly (a few
// milliseconds), so small and temporary directories leave no cache behind.
var minCachedBytes int64 = 32 << 20

type indexFile struct {
	Version int                 `json:"version"`
	Files   map[string]indexRec `json:"files"`
}

type indexRec struct {
	Size    int64     `json:"size"`
	MtimeNs int64     `json:"mtimeNs"`
	State   scanState `json:"state"`
}

func indexPath(dir string) string {
	base := indexDir()
	if base == "" {
		return ""
	}
	h := fnv.New64a()
	h.Write([]byte(absPath(dir)))
	return filepath.Join(base, fmt.Sprintf("%016x.json", h.Sum64()))
}

func loadIndex(path string) map[string]indexRec {
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var idx indexFile
	if json.Unmarshal(data, &idx) != nil || idx.Version != indexVersion {
		return nil
	}
	return idx.Files
}

func saveIndex(path string, files map[string]indexRec) {
	if path == "" {
		return
	}
	data, err := json.Marshal(indexFile{Version: indexVersion, Files: files})
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".index-*.tmp")
	if err != nil {
		return
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), path) != nil {
		os.Remove(f.Name())
	}
}

// scanInfos summarizes files (all under cacheKey) in parallel with a
// bounded number of workers. Unreadable files and files that are not
// sessions are left out: one bad file must not hide the others.
func scanInfos(cacheKey string, files []string) []SessionInfo {
	stats := make([]os.FileInfo, len(files))
	var total int64
	for i, f := range files {
		if st, err := os.Stat(f); err == nil && !st.IsDir() {
			stats[i] = st
			total += st.Size()
		}
	}
	ipath := ""
	if total >= minCachedBytes {
		ipath = indexPath(cacheKey)
	}
	cached := loadIndex(ipath)
	recs := make([]*indexRec, len(files))
	infos := make([]*SessionInfo, len(files))
	var changed bool
	var mu sync.Mutex
	var next int
	var wg sync.WaitGroup
	for range min(2*runtime.GOMAXPROCS(0), 16, len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(files) {
					return
				}
				if stats[i] == nil {
					continue
				}
				rec, fresh := summarize(files[i], stats[i], cached)
				if rec == nil {
					continue
				}
				recs[i] = rec
				infos[i] = rec.State.info(files[i], timeFromNs(rec.MtimeNs), nil)
				if fresh {
					mu.Lock()
					changed = true
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	out := make([]SessionInfo, 0, len(files))
	keep := make(map[string]indexRec, len(files))
	for i, in := range infos {
		if in != nil {
			out = append(out, *in)
			keep[files[i]] = *recs[i]
		}
	}
	if ipath != "" && (changed || len(keep) != len(cached)) {
		saveIndex(ipath, keep)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Modified.After(out[j].Modified) })
	return out
}

// summarize returns the scan record of path, reusing the cache when it can.
// fresh reports that the file was (re)scanned.
func summarize(path string, st os.FileInfo, cached map[string]indexRec) (rec *indexRec, fresh bool) {
	mtime := st.ModTime().UnixNano()
	var prev *scanState
	if c, ok := cached[path]; ok {
		if c.Size == st.Size() && c.MtimeNs == mtime {
			c.State.headerSeen = true
			return &c, false
		}
		if st.Size() >= c.State.ScannedTo {
			if h, err := headHash(path); err == nil && h == c.State.HeadHash {
				prev = &c.State
			}
		}
	}
	s, err := scanFile(path, prev, st.Size())
	if err != nil {
		return nil, false
	}
	return &indexRec{Size: st.Size(), MtimeNs: mtime, State: *s}, true
}
