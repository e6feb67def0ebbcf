package packages

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// latestVersion asks the registry for the newest version matching src
// (npm view, bounded by networkTimeout).
func (m *Manager) latestVersion(ctx context.Context, src Source) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, networkTimeout)
	defer cancel()
	spec := src.Name
	if src.Version != "" {
		spec = src.Spec
	}
	out, err := m.npm(ctx, m.Cwd, "view", spec, "version", "--json")
	if err != nil {
		return "", err
	}
	var v any
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &v); err != nil {
		return "", fmt.Errorf("unexpected npm view output: %w", err)
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case []any:
		best := ""
		for _, e := range x {
			if s, ok := e.(string); ok && (best == "" || newer(s, best)) {
				best = s
			}
		}
		if best != "" {
			return best, nil
		}
	}
	return "", fmt.Errorf("unexpected npm view output")
}

// newer reports whether semver a is greater than b (a release beats its
// prereleases; prereleases compare as strings).
func newer(a, b string) bool {
	pa, pb := parseSemver(a), parseSemver(b)
	for i := 0; i < 3; i++ {
		if pa.n[i] != pb.n[i] {
			return pa.n[i] > pb.n[i]
		}
	}
	switch {
	case pa.pre == pb.pre:
		return false
	case pa.pre == "":
		return true
	case pb.pre == "":
		return false
	}
	return pa.pre > pb.pre
}

type semver struct {
	n   [3]int
	pre string
}

func parseSemver(s string) semver {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	s, _, _ = strings.Cut(s, "+")
	core, pre, _ := strings.Cut(s, "-")
	var v semver
	v.pre = pre
	for i, part := range strings.SplitN(core, ".", 3) {
		v.n[i], _ = strconv.Atoi(part)
	}
	return v
}
