package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// maxLogBytes is the size past which mcp.log moves to mcp.log.1.
const maxLogBytes = 5 << 20

// maxLogMessageBytes bounds one logged message.
const maxLogMessageBytes = 64 << 10

// ServerLog appends the log notifications servers send to mcp.log as
// `<time> [<server>] <level> <logger>: <message>`. Several relay processes
// may share the file, so each message is one append. Write errors are
// ignored: logging must never break a tool call.
type ServerLog struct {
	Path string
	Now  func() time.Time

	mu   sync.Mutex
	size int64
	init bool
}

// NewServerLog returns the log at path.
func NewServerLog(path string) *ServerLog { return &ServerLog{Path: path} }

// FormatLogLine formats one message; continuation lines are indented.
func FormatLogLine(now time.Time, server, level, logger string, data any) string {
	if level == "" {
		level = "info"
	}
	text, ok := data.(string)
	if !ok {
		b, err := json.Marshal(data)
		if err != nil {
			text = fmt.Sprint(data)
		} else {
			text = string(b)
		}
	}
	if len(text) > maxLogMessageBytes {
		text = text[:maxLogMessageBytes] + "…"
	}
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\n    ")
	if logger != "" {
		logger = " " + logger + ":"
	}
	return fmt.Sprintf("%s [%s] %s%s %s\n", now.UTC().Format("2006-01-02T15:04:05.000Z"), server, level, logger, text)
}

// Write appends one message from server.
func (l *ServerLog) Write(server, level, logger string, data any) {
	if l == nil || l.Path == "" {
		return
	}
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	line := FormatLogLine(now(), server, level, logger, data)
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.init {
		_ = os.MkdirAll(filepath.Dir(l.Path), 0o700)
		l.size = fileSize(l.Path)
		l.init = true
	}
	if l.size > maxLogBytes {
		// Another process may have rotated it already.
		if fileSize(l.Path) > maxLogBytes {
			_ = os.Rename(l.Path, l.Path+".1")
		}
		l.size = fileSize(l.Path)
	}
	f, err := os.OpenFile(l.Path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	n, _ := f.WriteString(line)
	f.Close()
	l.size += int64(n)
}

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}
