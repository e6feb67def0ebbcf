// Package versioncheck asks whether a newer relay release exists. The
// check is behind Source so the UI does not care where releases come from,
// and Enabled is the one place that decides whether it may run at all
// (RELAY_SKIP_VERSION_CHECK, offline mode).
package versioncheck

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/config"
)

// Source answers the latest released version ("0.2.0" or "v0.2.0").
type Source interface {
	Latest(ctx context.Context) (string, error)
}

// Enabled reports whether the latest-release check may run: not when
// RELAY_SKIP_VERSION_CHECK is set, nor offline (--offline, RELAY_OFFLINE).
func Enabled(env config.Env) bool { return !env.SkipVersionCheck }

// Timeout bounds one check; a slow network never delays anything else.
const Timeout = 5 * time.Second

// Newer returns the latest version when it is newer than current, "" when
// it is not or cannot be told (errors are not reported: the check is a
// courtesy).
func Newer(ctx context.Context, src Source, current string) string {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	latest, err := src.Latest(ctx)
	if err != nil {
		return ""
	}
	latest = strings.TrimPrefix(strings.TrimSpace(latest), "v")
	if isNewer(latest, strings.TrimPrefix(strings.TrimSpace(current), "v")) {
		return latest
	}
	return ""
}

// Notice is the line the UI shows for a newer release ("" for none).
func Notice(ctx context.Context, src Source, current string) string {
	v := Newer(ctx, src, current)
	if v == "" {
		return ""
	}
	return fmt.Sprintf("relay %s is available (this is %s). RELAY_SKIP_VERSION_CHECK=1 turns this check off.", v, current)
}

type version struct {
	n   [3]int
	pre bool // a pre-release ("-dev", "-rc.1") comes before its release
}

func parse(s string) (version, bool) {
	var v version
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '-'); i >= 0 {
		s, v.pre = s[:i], true
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v.n[i] = n
	}
	return v, true
}

func isNewer(candidate, current string) bool {
	c, ok1 := parse(candidate)
	cur, ok2 := parse(current)
	if !ok1 || !ok2 || c.pre {
		return false
	}
	for i := range c.n {
		if c.n[i] != cur.n[i] {
			return c.n[i] > cur.n[i]
		}
	}
	return cur.pre
}

// GitHub reads the latest release of a GitHub repository.
type GitHub struct {
	Repo   string       // "owner/name"; relay's own when empty
	URL    string       // API base; https://api.github.com when empty
	Client *http.Client // http.DefaultClient when nil
}

// Latest implements Source.
func (g GitHub) Latest(ctx context.Context) (string, error) {
	repo, base, client := g.Repo, g.URL, g.Client
	if repo == "" {
		repo = "relay-agent/relay"
	}
	if base == "" {
		base = "https://api.github.com"
	}
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/repos/"+repo+"/releases/latest", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("User-Agent", "relay-version-check")
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("version check: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("version check: %s", resp.Status)
	}
	var r struct {
		TagName string `json:"tag_name"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&r); err != nil {
		return "", fmt.Errorf("version check: %w", err)
	}
	if r.TagName == "" {
		return "", fmt.Errorf("version check: release without tag_name")
	}
	return r.TagName, nil
}
