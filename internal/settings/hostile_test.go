package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSaveThroughSymlinkKeepsFormatting: a dotfiles setup links
// settings.json elsewhere; a save changes the target, keeps the link, the
// unknown keys, the tab indentation and CRLF line ends, and ends with a
// newline.
func TestSaveThroughSymlinkKeepsFormatting(t *testing.T) {
	e := newEnv(t)
	dotfiles := filepath.Join(e.home, "dotfiles", "relay-settings.json")
	os.MkdirAll(filepath.Dir(dotfiles), 0o755)
	writeFile(t, dotfiles, "{\r\n\t\"mine\": {\"keep\": [1, 2]},\r\n\t\"theme\": \"dark\"\r\n}")
	link := filepath.Join(e.agent, "settings.json")
	if err := os.Symlink(dotfiles, link); err != nil {
		t.Fatal(err)
	}
	if err := SetUser(e.agent, []string{"theme"}, "light"); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("settings.json is no longer a symbolic link")
	}
	want := "{\r\n\t\"mine\": {\r\n\t\t\"keep\": [\r\n\t\t\t1,\r\n\t\t\t2\r\n\t\t]\r\n\t},\r\n\t\"theme\": \"light\"\r\n}\r\n"
	if got := readFile(t, dotfiles); got != want {
		t.Errorf("target:\n%q\nwant\n%q", got, want)
	}
}

// TestSettingsFilesNotRegular: a settings.json that is a device, a FIFO
// or too large is reported naming the file, never read whole or waited on.
func TestSettingsFilesNotRegular(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	e := newEnv(t)
	if err := os.Symlink("/dev/zero", filepath.Join(e.agent, "settings.json")); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(e.cwd, ".relay", "settings.json")
	writeFile(t, big, `{"theme":"`+strings.Repeat("x", 5<<20)+`"}`)
	_, diags := e.load(true)
	var msgs []string
	for _, d := range diags {
		msgs = append(msgs, d.File+": "+d.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"agent/settings.json: cannot read settings: it is a character device, not a regular file; using defaults for this file",
		".relay/settings.json: cannot read settings: too large (5242892 bytes, limit 4194304); using defaults for this file"} {
		if !strings.Contains(all, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, all)
		}
	}
	if err := SetUser(e.agent, []string{"theme"}, "light"); err == nil || !strings.Contains(err.Error(), "character device") {
		t.Errorf("saving over a device: %v", err)
	}
}
