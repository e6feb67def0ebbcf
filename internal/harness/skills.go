package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SkillInfo describes a loaded skill for telemetry and audit.
type SkillInfo struct {
	Name string
	// BaseDir holds the entry file and resources.
	BaseDir string
	// FilePath is the entry file (SKILL.md).
	FilePath string
}

// SkillUsage is one skill's usage in a run.
type SkillUsage struct {
	Skill  string `json:"skill"`
	Events int    `json:"events"`
	// Fanout is the number of distinct resources used.
	Fanout int `json:"fanout"`
	// EffectiveUptake is the share of loads followed by an action.
	EffectiveUptake float64 `json:"effectiveUptake"`
	// Early/Middle/Late are the shares of loads per third of the run.
	Early    float64 `json:"early"`
	Middle   float64 `json:"middle"`
	Late     float64 `json:"late"`
	Revisits int     `json:"revisits"`
}

const uptakeWindow = 3

var scriptPathRe = lazyRe(`(?i)\.(?:sh|bash|ps1|py|js|mjs|cjs|ts|rb|pl)$`)

type skillEvent struct {
	skill, resource, kind string // kind: entry, reference, script
	step                  int
}

type skillStep struct{ action, ok bool }

// skillTracker observes how skills are used during one run.
type skillTracker struct {
	events []skillEvent
	steps  []skillStep
}

func normalizeSlash(p string) string {
	return strings.TrimRight(strings.ReplaceAll(p, `\`, "/"), "/")
}

// relativeTo returns path relative to base (case-insensitive), ok=false when
// outside it.
func relativeTo(base, path string) (string, bool) {
	b := strings.ToLower(normalizeSlash(base))
	n := normalizeSlash(path)
	l := strings.ToLower(n)
	if l == b {
		return "", true
	}
	if strings.HasPrefix(l, b+"/") {
		return n[len(b)+1:], true
	}
	return "", false
}

var commandTokenSplitRe = lazyRe("[\\s\"'`=]+")

func (t *skillTracker) record(skills []SkillInfo, e Effect, isError bool) {
	step := len(t.steps)
	type hit struct {
		skill    SkillInfo
		resource string
	}
	var hits []hit
	for _, s := range skills {
		candidates := append([]string(nil), e.Paths...)
		if e.Command != "" {
			base := strings.ToLower(normalizeSlash(s.BaseDir))
			for _, tok := range commandTokenSplitRe().Split(e.Command, -1) {
				if tok != "" && strings.HasPrefix(strings.ToLower(normalizeSlash(tok)), base) {
					candidates = append(candidates, tok)
				}
			}
		}
		for _, c := range candidates {
			if r, ok := relativeTo(s.BaseDir, c); ok && r != "" {
				hits = append(hits, hit{s, r})
			}
		}
	}
	action := e.Kind.IsMutation() || e.Kind == EffectVerify || e.Kind == EffectExecute
	t.steps = append(t.steps, skillStep{action: action && len(hits) == 0, ok: !isError})
	for _, h := range hits {
		kind := "reference"
		if entry, ok := relativeTo(h.skill.BaseDir, h.skill.FilePath); ok && h.skill.FilePath != "" && strings.EqualFold(entry, h.resource) {
			kind = "entry"
		} else if scriptPathRe().MatchString(h.resource) && e.Kind != EffectRead {
			kind = "script"
		}
		t.events = append(t.events, skillEvent{skill: h.skill.Name, resource: h.resource, kind: kind, step: step})
	}
}

// recordStep records a step that touched no skill resource (record with no
// hits).
func (t *skillTracker) recordStep(action, isError bool) {
	t.steps = append(t.steps, skillStep{action: action, ok: !isError})
}

func (t *skillTracker) report() []SkillUsage {
	total := len(t.steps)
	effective := make([]bool, len(t.events))
	for i, ev := range t.events {
		if ev.kind == "script" {
			effective[i] = ev.step < total && t.steps[ev.step].ok
			continue
		}
		for s := ev.step + 1; s < min(total, ev.step+1+uptakeWindow); s++ {
			if t.steps[s].action {
				effective[i] = true
				break
			}
		}
	}
	var order []string
	by := map[string][]int{}
	for i, ev := range t.events {
		if _, ok := by[ev.skill]; !ok {
			order = append(order, ev.skill)
		}
		by[ev.skill] = append(by[ev.skill], i)
	}
	var out []SkillUsage
	for _, name := range order {
		idx := by[name]
		resources := map[string]int{}
		u := SkillUsage{Skill: name, Events: len(idx)}
		var eff, early, middle, late int
		for _, i := range idx {
			ev := t.events[i]
			resources[ev.resource]++
			if effective[i] {
				eff++
			}
			if total > 0 {
				switch f := float64(ev.step) / float64(total); {
				case f < 1.0/3:
					early++
				case f < 2.0/3:
					middle++
				default:
					late++
				}
			}
		}
		u.Fanout = len(resources)
		for _, n := range resources {
			if n > 1 {
				u.Revisits++
			}
		}
		n := float64(len(idx))
		u.EffectiveUptake = float64(eff) / n
		u.Early, u.Middle, u.Late = float64(early)/n, float64(middle)/n, float64(late)/n
		out = append(out, u)
	}
	return out
}

// Skill structure audit.

// SkillFinding is one audit finding for a skill's structure.
type SkillFinding struct {
	Code     string `json:"code"`
	Message  string `json:"message"`
	Resource string `json:"resource,omitempty"`
}

const (
	maxEntryLines       = 300
	maxDescriptionChars = 300
	maxSkillResources   = 200
	maxSkillDepth       = 4
)

var (
	triggerRe        = lazyRe(`(?i)(?:^|[^\p{L}])(?:when|if|before|after|for|during|to|while|unless|quando|se|antes|depois|para|durante|caso|ao)(?:[^\p{L}]|$)`)
	frontmatterRe    = lazyRe(`^---\r?\n((?s:.*?))\r?\n---`)
	descriptionRe    = lazyRe(`(?m)^description:[ \t]*(.*)$`)
	mdLinkRe         = lazyRe(`\]\(([^)\s#]+)(?:#[^)]*)?\)`)
	codeSpanPathRe   = lazyRe("`([^`\\s]+/[^`\\s]+\\.[A-Za-z0-9]+)`")
	schemeRe         = lazyRe(`(?i)^[a-z]+:`)
	linkOrCodeSpanRe = lazyRe("\\]\\([^)]*\\)|`[^`]*`")
)

var defaultResourceDirs = []string{"references", "reference", "scripts", "assets", "templates", "examples"}

// AuditSkillDir audits a SKILL.md skill on disk for progressive disclosure.
// Skills whose entry is not SKILL.md share a directory with other skills and
// are not audited; unreadable skills yield no findings.
func AuditSkillDir(s SkillInfo) []SkillFinding {
	if filepath.Base(s.FilePath) != "SKILL.md" {
		return nil
	}
	entry, err := os.ReadFile(s.FilePath)
	if err != nil {
		return nil
	}
	return AuditSkill(string(entry), listSkillResources(s))
}

func listSkillResources(s SkillInfo) []string {
	var files []string
	var visit func(dir string, depth int)
	visit = func(dir string, depth int) {
		if depth > maxSkillDepth || len(files) >= maxSkillResources {
			return
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") || e.Name() == "node_modules" || len(files) >= maxSkillResources {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if e.IsDir() {
				visit(p, depth+1)
			} else if p != s.FilePath {
				if rel, err := filepath.Rel(s.BaseDir, p); err == nil {
					files = append(files, filepath.ToSlash(rel))
				}
			}
		}
	}
	visit(s.BaseDir, 0)
	return files
}

type skillRef struct{ path, line string }

// AuditSkill audits an entry file's text against the skill's other files
// (relative, forward slashes).
func AuditSkill(entry string, resources []string) []SkillFinding {
	var out []SkillFinding
	lines := strings.Count(entry, "\n") + 1
	switch {
	case len(resources) == 0 && lines > maxEntryLines:
		out = append(out, SkillFinding{Code: "monolithic-entry", Message: fmt.Sprintf("Entry file has %d lines and no resources. Consider a short router entry with references and scripts loaded on demand; keep strict formats, thresholds, and numeric contracts in the entry.", lines)})
	case lines > maxEntryLines:
		out = append(out, SkillFinding{Code: "oversized-entry", Message: fmt.Sprintf("Entry file has %d lines although the skill has resources. Move detail the current step does not need into them and keep the entry a router of at most %d lines.", lines, maxEntryLines)})
	}
	if d := frontmatterDescription(entry); chars(d) > maxDescriptionChars {
		out = append(out, SkillFinding{Code: "description-too-long", Message: fmt.Sprintf("Description has %d characters (limit %d). State the situation that should trigger the skill, not its contents.", chars(d), maxDescriptionChars)})
	}
	dirs := map[string]bool{}
	for _, d := range defaultResourceDirs {
		dirs[d] = true
	}
	for _, r := range resources {
		if i := strings.IndexByte(r, '/'); i > 0 {
			dirs[strings.ToLower(r[:i])] = true
		}
	}
	refs := referencedResources(entry, dirs)
	available := map[string]bool{}
	for _, r := range resources {
		available[strings.ToLower(r)] = true
	}
	for _, ref := range refs {
		if !available[strings.ToLower(ref.path)] {
			out = append(out, SkillFinding{Code: "missing-resource", Resource: ref.path, Message: "Entry references " + ref.path + ", which does not exist."})
		} else if !triggerRe().MatchString(linkOrCodeSpanRe().ReplaceAllString(ref.line, " ")) {
			out = append(out, SkillFinding{Code: "reference-without-trigger", Resource: ref.path, Message: "Entry references " + ref.path + " without saying when to load it. State the step or condition that needs it."})
		}
	}
	referenced := map[string]bool{}
	for _, ref := range refs {
		referenced[strings.ToLower(ref.path)] = true
	}
	for _, r := range resources {
		l := strings.ToLower(r)
		covered := referenced[l]
		for p := range referenced {
			if strings.HasPrefix(l, strings.TrimSuffix(p, "/")+"/") {
				covered = true
			}
		}
		if !covered {
			out = append(out, SkillFinding{Code: "unreferenced-resource", Resource: r, Message: r + " is never referenced by the entry file, so the agent has no route to it."})
		}
	}
	return out
}

func frontmatterDescription(entry string) string {
	m := frontmatterRe().FindStringSubmatch(entry)
	if m == nil {
		return ""
	}
	d := descriptionRe().FindStringSubmatch(m[1])
	if d == nil {
		return ""
	}
	v := strings.TrimSpace(d[1])
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	return v
}

// referencedResources lists the relative resource paths an entry references:
// Markdown links, and code spans under a resource directory (a backticked
// `docs/report.pdf` elsewhere names a file to write, not one the skill ships).
func referencedResources(entry string, dirs map[string]bool) []skillRef {
	var out []skillRef
	seen := map[string]bool{}
	relative := func(c string) bool {
		return !schemeRe().MatchString(c) && !strings.HasPrefix(c, "/") && !strings.HasPrefix(c, "#")
	}
	add := func(c, line string) {
		p := strings.TrimPrefix(c, "./")
		if !seen[p] {
			seen[p] = true
			out = append(out, skillRef{p, line})
		}
	}
	for _, line := range strings.Split(entry, "\n") {
		for _, m := range mdLinkRe().FindAllStringSubmatch(line, -1) {
			if relative(m[1]) {
				add(m[1], line)
			}
		}
		for _, m := range codeSpanPathRe().FindAllStringSubmatch(line, -1) {
			dir, _, _ := strings.Cut(strings.TrimPrefix(m[1], "./"), "/")
			if relative(m[1]) && dirs[strings.ToLower(dir)] {
				add(m[1], line)
			}
		}
	}
	return out
}
