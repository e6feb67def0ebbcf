package packages

import (
	"regexp"
	"strconv"
	"strings"
)

// npm version ranges (node-semver's grammar): "||" between sets, each a
// hyphen range "a - b" or space-separated comparators: <, <=, >, >=, =,
// a (partial) version or an x-range (1.x, 1.2.*, *, ""), ^ and ~. An
// installed package is checked against the range of its settings entry,
// so a range that moved ("^1" -> "^2") reinstalls.

// bound is one comparator: op and a full version.
type bound struct {
	op string // "<", "<=", ">", ">=", "="
	v  semver
}

// rangeSet is one "||" alternative: every bound must hold.
type rangeSet []bound

// partialVersion is a version with some parts missing or wild.
var partialVersion = regexp.MustCompile(`^v?(\d+|[xX*])?(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$`)

// parsePartial returns the numeric parts given (n), how many (count; a
// wildcard ends the count) and the prerelease.
func parsePartial(s string) (n [3]int, count int, pre string, ok bool) {
	m := partialVersion.FindStringSubmatch(s)
	if m == nil {
		return n, 0, "", false
	}
	for i := 0; i < 3; i++ {
		p := m[i+1]
		if p == "" || p == "x" || p == "X" || p == "*" {
			break
		}
		n[i], _ = strconv.Atoi(p)
		count++
	}
	if count < 3 {
		pre = "" // a prerelease only means something on a full version
	} else {
		pre = m[4]
	}
	return n, count, pre, true
}

// parseRange parses an npm range; ok is false for what is not one (a
// dist-tag such as "latest" or "beta").
func parseRange(r string) ([]rangeSet, bool) {
	var sets []rangeSet
	for _, alt := range strings.Split(r, "||") {
		set, ok := parseSet(strings.TrimSpace(alt))
		if !ok {
			return nil, false
		}
		sets = append(sets, set)
	}
	return sets, true
}

func parseSet(s string) (rangeSet, bool) {
	if a, b, found := strings.Cut(s, " - "); found {
		lo, ok1 := expand(">=", strings.TrimSpace(a))
		hi, ok2 := expand("<=", strings.TrimSpace(b))
		return append(lo, hi...), ok1 && ok2
	}
	// Operators may be followed by spaces (">= 1.2.0").
	fields := strings.Fields(s)
	var toks []string
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if strings.Trim(f, "<>=~^") == "" && i+1 < len(fields) {
			f += fields[i+1]
			i++
		}
		toks = append(toks, f)
	}
	if len(toks) == 0 {
		return rangeSet{}, true // "" = any version
	}
	var set rangeSet
	for _, t := range toks {
		op := ""
		for _, o := range []string{">=", "<=", ">", "<", "=", "^", "~>", "~"} {
			if strings.HasPrefix(t, o) {
				op, t = o, strings.TrimSpace(t[len(o):])
				break
			}
		}
		bs, ok := expand(op, t)
		if !ok {
			return nil, false
		}
		set = append(set, bs...)
	}
	return set, true
}

// expand turns one comparator into bounds.
func expand(op, v string) ([]bound, bool) {
	n, count, pre, ok := parsePartial(v)
	if !ok {
		return nil, false
	}
	full := func(a, b, c int, p string) semver { return semver{n: [3]int{a, b, c}, pre: p} }
	lo := full(n[0], n[1], n[2], pre)
	// next is the version just past the partial (1.2 -> 1.3.0).
	next := func(upto int) semver {
		switch upto {
		case 0:
			return full(0, 0, 0, "")
		case 1:
			return full(n[0]+1, 0, 0, "0")
		case 2:
			return full(n[0], n[1]+1, 0, "0")
		}
		return full(n[0], n[1], n[2]+1, "0")
	}
	any := []bound{}
	switch op {
	case "^":
		if count == 0 {
			return any, true
		}
		switch {
		case n[0] > 0 || count == 1:
			return []bound{{">=", lo}, {"<", next(1)}}, true
		case n[1] > 0 || count == 2:
			return []bound{{">=", lo}, {"<", next(2)}}, true
		}
		return []bound{{">=", lo}, {"<", next(3)}}, true
	case "~", "~>":
		if count == 0 {
			return any, true
		}
		if count == 1 {
			return []bound{{">=", lo}, {"<", next(1)}}, true
		}
		return []bound{{">=", lo}, {"<", next(2)}}, true
	case "", "=":
		switch count {
		case 0:
			return any, true
		case 3:
			return []bound{{"=", lo}}, true
		}
		return []bound{{">=", lo}, {"<", next(count)}}, true
	case ">":
		if count == 0 {
			return []bound{{"<", full(0, 0, 0, "0")}}, true // nothing
		}
		if count < 3 {
			return []bound{{">=", next(count)}}, true
		}
		return []bound{{">", lo}}, true
	case ">=":
		return []bound{{">=", lo}}, true
	case "<":
		if count == 0 {
			return []bound{{"<", full(0, 0, 0, "0")}}, true
		}
		return []bound{{"<", lo}}, true
	case "<=":
		if count == 0 {
			return any, true
		}
		if count < 3 {
			return []bound{{"<", next(count)}}, true
		}
		return []bound{{"<=", lo}}, true
	}
	return nil, false
}

// compare orders two versions (-1, 0, 1); prereleases come before their
// release, and compare identifier by identifier (numbers numerically).
func compare(a, b semver) int {
	for i := 0; i < 3; i++ {
		if a.n[i] != b.n[i] {
			if a.n[i] < b.n[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case a.pre == b.pre:
		return 0
	case a.pre == "":
		return 1
	case b.pre == "":
		return -1
	}
	pa, pb := strings.Split(a.pre, "."), strings.Split(b.pre, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, errx := strconv.Atoi(pa[i])
		y, erry := strconv.Atoi(pb[i])
		switch {
		case errx == nil && erry == nil && x != y:
			if x < y {
				return -1
			}
			return 1
		case errx == nil && erry != nil:
			return -1
		case errx != nil && erry == nil:
			return 1
		case pa[i] != pb[i]:
			if pa[i] < pb[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(pa) < len(pb):
		return -1
	case len(pa) > len(pb):
		return 1
	}
	return 0
}

func (b bound) holds(v semver) bool {
	c := compare(v, b.v)
	switch b.op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return c == 0
}

// satisfies reports whether version is in npm range r; known is false when
// r is not a range (a dist-tag) and only the registry can tell. As npm
// does, a prerelease matches only a set that names a prerelease of the
// same major.minor.patch.
func satisfies(version, r string) (ok, known bool) {
	sets, parsed := parseRange(strings.TrimSpace(r))
	if !parsed {
		return false, false
	}
	v := parseSemver(version)
	for _, set := range sets {
		if setHolds(set, v) {
			return true, true
		}
	}
	return false, true
}

func setHolds(set rangeSet, v semver) bool {
	for _, b := range set {
		if !b.holds(v) {
			return false
		}
	}
	if v.pre == "" {
		return true
	}
	for _, b := range set {
		// The "0" prerelease of an upper bound is ours (1.3.0-0), not the
		// range's.
		if b.v.pre != "" && !(b.op == "<" && b.v.pre == "0") && b.v.n == v.n {
			return true
		}
	}
	return false
}
