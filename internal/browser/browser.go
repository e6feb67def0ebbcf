// Package browser opens a sign-in page in the person's browser: the
// commands of $BROWSER when it is set (colon-separated, "%s" standing for
// the URL), else the desktop's opener (open on macOS, the URL handler of
// rundll32 on Windows, xdg-open elsewhere), as the original does. It
// never waits for the browser: the process is started and reaped in the
// background. The caller prints the URL either way.
package browser

import (
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"runtime"
	"strings"
)

// Command returns the command lines that open page: one per $BROWSER
// entry (browserEnv), else the platform's opener for goos ("" = this
// one's). Only http and https URLs are opened: anything else could be
// read as an option or a local file by the opener.
func Command(browserEnv, goos, page string) ([][]string, error) {
	u, err := url.Parse(page)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("not a web page: %q", page)
	}
	var cmds [][]string
	for _, entry := range strings.Split(browserEnv, ":") {
		f := strings.Fields(entry)
		if len(f) == 0 {
			continue
		}
		placed := false
		for i, a := range f {
			if strings.Contains(a, "%s") {
				f[i], placed = strings.ReplaceAll(a, "%s", page), true
			}
		}
		if !placed {
			f = append(f, page)
		}
		cmds = append(cmds, f)
	}
	if len(cmds) > 0 {
		return cmds, nil
	}
	if goos == "" {
		goos = runtime.GOOS
	}
	switch goos {
	case "darwin":
		return [][]string{{"open", page}}, nil
	case "windows":
		// "start" is a cmd.exe builtin that mangles & in URLs.
		return [][]string{{"rundll32", "url.dll,FileProtocolHandler", page}}, nil
	}
	return [][]string{{"xdg-open", page}}, nil
}

// Open starts the first command of Command(browserEnv, "", page) that can
// be started and returns without waiting for it. The error says why no
// browser could be started (no opener installed, not a web page).
func Open(browserEnv, page string) error {
	cmds, err := Command(browserEnv, "", page)
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range cmds {
		cmd := exec.Command(c[0], c[1:]...)
		// Stdin, stdout and stderr stay closed (/dev/null): the browser
		// must not write over the terminal UI.
		if err := cmd.Start(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c[0], err))
			continue
		}
		go cmd.Wait() // reap it whenever the opener exits
		return nil
	}
	return errors.Join(errs...)
}
