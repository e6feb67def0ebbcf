package cli

import (
	"os"
	"runtime/debug"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/session"
)

// A resumed session file is read into one buffer that stays live for the
// whole run (decoded messages alias it) but holds no pointers. Counted in
// the live heap, it doubles the garbage the collector allows before its
// next cycle: decoding the file, restoring the harness and building the
// first request of a never-compacted 56 MB session grew the heap to twice
// the file (peak RSS ~155 MB). For a large file the percentage is scaled
// down so that the allowance is about what the rest of the heap would get;
// the extra cycles mark little (the buffer is not scanned). GOGC in the
// environment wins.
const (
	gcTuneMin  = 8 << 20  // smaller files are left to the default
	gcTuneBase = 48 << 20 // the heap besides the file the default allowance is kept for
)

// tuneGC lowers the GC percentage for a large session file.
func tuneGC(env config.Env, sess *session.Manager) {
	if _, set := env.Lookup("GOGC"); set || sess == nil || sess.SessionFile() == "" {
		return
	}
	st, err := os.Stat(sess.SessionFile())
	if err != nil || st.Size() < gcTuneMin {
		return
	}
	debug.SetGCPercent(gcPercent(st.Size()))
}

// gcPercent is the GC percentage for a session file of size bytes.
func gcPercent(size int64) int {
	if size < gcTuneMin {
		return 100
	}
	return max(25, int(100*gcTuneBase/(gcTuneBase+size)))
}
