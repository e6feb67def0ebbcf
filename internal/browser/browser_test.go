package browser

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestCommand(t *testing.T) {
	const page = "https://accounts.google.com/o/oauth2/v2/auth?client_id=x&state=y"
	tests := []struct {
		browser, goos string
		want          [][]string
	}{
		{"", "linux", [][]string{{"xdg-open", page}}},
		{"", "freebsd", [][]string{{"xdg-open", page}}},
		{"", "darwin", [][]string{{"open", page}}},
		{"", "windows", [][]string{{"rundll32", "url.dll,FileProtocolHandler", page}}},
		{"firefox", "darwin", [][]string{{"firefox", page}}},
		{"firefox --new-window:w3m", "linux", [][]string{{"firefox", "--new-window", page}, {"w3m", page}}},
		{"lynx -dump %s", "linux", [][]string{{"lynx", "-dump", page}}},
		{" : ", "linux", [][]string{{"xdg-open", page}}},
	}
	for _, tt := range tests {
		got, err := Command(tt.browser, tt.goos, page)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("BROWSER=%q %s: %q %v", tt.browser, tt.goos, got, err)
		}
	}
	for _, bad := range []string{"--help", "file:///etc/passwd", "javascript:alert(1)", "https://", ""} {
		if _, err := Command("", "linux", bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestOpenDoesNotWait: Open returns while the browser still runs; the
// browser gets the URL.
func TestOpenDoesNotWait(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "fake-browser")
	// It waits for the test's go-ahead, which comes only after Open
	// returned: an Open that waited would never return.
	os.WriteFile(script, []byte("#!/bin/sh\nwhile [ ! -f \""+dir+"/go\" ]; do sleep 0.01; done\necho \"$1\" > \""+dir+"/out.tmp\"\nmv \""+dir+"/out.tmp\" \""+dir+"/out\"\n"), 0o755)
	const page = "https://example.com/login?a=1&b=2"
	if err := Open(script, page); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "out")); err == nil {
			if got := strings.TrimSpace(string(b)); got != page {
				t.Fatalf("browser got %q", got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the browser never got the page")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestOpenReportsMissingBrowser(t *testing.T) {
	err := Open(filepath.Join(t.TempDir(), "no-such-browser")+":"+filepath.Join(t.TempDir(), "neither"), "https://example.com")
	if err == nil || !strings.Contains(err.Error(), "no-such-browser") || !strings.Contains(err.Error(), "neither") {
		t.Fatalf("err = %v", err)
	}
}
