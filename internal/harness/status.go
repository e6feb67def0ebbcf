package harness

import (
	"fmt"
	"math"
	"strings"
)

// Status is the harness state for /harness (TUI) and RPC. A nil pillar is
// disabled.
type Status struct {
	Alignment *AlignmentStatus `json:"alignment"`
	Evidence  *EvidenceStatus  `json:"evidence"`
	Context   *ContextStats    `json:"context"`
	Skills    *SkillsStatus    `json:"skills"`
}

// AlignmentStatus is the alignment pillar's state.
type AlignmentStatus struct {
	Constraints []Constraint `json:"constraints"`
	Corrections []Correction `json:"corrections"`
	// Pending are fingerprints of operations waiting for the developer's yes.
	Pending []string `json:"pending"`
	// Blocked are the latest blocked calls, oldest first.
	Blocked []BlockedCall `json:"blocked"`
}

// EvidenceStatus is the evidence pillar's state for the current request.
type EvidenceStatus struct {
	LastReport     *CompletionReport `json:"lastReport,omitempty"`
	Checks         []Check           `json:"checks"`
	PendingChanges []string          `json:"pendingChanges"`
	VerifyCommands []string          `json:"verifyCommands"`
	// Slices is nil when both slice signals are off.
	Slices *SliceStatus `json:"slices,omitempty"`
}

// SliceStatus is the change-size and file-growth state of the request.
type SliceStatus struct {
	// ChangeSizeAvailable is false outside a git repository or when off.
	ChangeSizeAvailable bool            `json:"changeSizeAvailable"`
	ChangedLines        int             `json:"changedLines"`
	ChangedFiles        int             `json:"changedFiles"`
	Oversized           []OversizedFile `json:"oversized"`
}

// SkillsStatus is skill usage of the last run that loaded a skill resource
// and the structure audit of the loaded skills.
type SkillsStatus struct {
	Usage    []SkillUsage       `json:"usage"`
	Findings []SkillAuditResult `json:"findings"`
}

// SkillAuditResult is one finding for a named skill.
type SkillAuditResult struct {
	Skill string `json:"skill"`
	SkillFinding
}

// Status snapshots every pillar. It reads skill directories for the audit.
func (c *Core) Status() Status {
	c.waitMeasure()
	c.lock()
	var st Status
	if c.cfg.Alignment {
		st.Alignment = &AlignmentStatus{
			Constraints: append([]Constraint{}, c.ledger.items...),
			Corrections: append([]Correction{}, c.corrections...),
			Pending:     append([]string{}, c.pending...),
		}
		blocked := c.blocked
		if len(blocked) > 5 {
			blocked = blocked[len(blocked)-5:]
		}
		st.Alignment.Blocked = append([]BlockedCall{}, blocked...)
	}
	if c.cfg.Evidence {
		ev := &EvidenceStatus{
			Checks:         append([]Check{}, c.evidence.checks...),
			PendingChanges: c.evidence.pending(),
			VerifyCommands: append([]string{}, c.cfg.VerifyCommands...),
		}
		if c.evidence.last != nil {
			r := *c.evidence.last
			ev.LastReport = &r
		}
		if s := c.slices; s != nil {
			ev.Slices = &SliceStatus{
				ChangeSizeAvailable: s.maxChanged > 0 && !s.unavailable,
				ChangedLines:        s.changedLines,
				ChangedFiles:        s.files,
				Oversized:           append([]OversizedFile{}, s.oversized...),
			}
		}
		st.Evidence = ev
	}
	if c.cfg.Context {
		stats := c.lastStats
		st.Context = &stats
	}
	var skills []SkillInfo
	if c.cfg.Skills {
		usage := c.skills.report()
		if len(usage) == 0 {
			usage = c.lastUsage
		}
		st.Skills = &SkillsStatus{Usage: usage}
		if c.cfg.SkillList != nil {
			skills = c.cfg.SkillList()
		}
	}
	c.unlock()
	for _, s := range skills { // disk reads outside the lock
		for _, f := range AuditSkillDir(s) {
			st.Skills.Findings = append(st.Skills.Findings, SkillAuditResult{Skill: s.Name, SkillFinding: f})
		}
	}
	return st
}

// StatusSection is one titled block of /harness output.
type StatusSection struct {
	Title string   `json:"title"`
	Lines []string `json:"lines"`
}

// Sections renders the status as titled plain-text blocks.
func (s Status) Sections() []StatusSection {
	var out []StatusSection
	if a := s.Alignment; a != nil {
		var lines []string
		for _, c := range a.Constraints {
			lines = append(lines, "constraint "+c.ID+": "+c.Text)
		}
		if len(a.Constraints) == 0 {
			lines = append(lines, "no constraints recorded")
		}
		for _, p := range a.Pending {
			lines = append(lines, "waiting for approval: "+p)
		}
		for _, b := range a.Blocked {
			first, _, _ := strings.Cut(b.Reason, ". ")
			lines = append(lines, "blocked "+b.ToolName+": "+first)
		}
		out = append(out, StatusSection{"Alignment", lines})
		if len(a.Constraints) > 0 || len(a.Corrections) > 0 {
			var l []string
			for _, c := range a.Corrections {
				l = append(l, "correction: "+c.Text)
			}
			for _, c := range a.Constraints {
				l = append(l, "constraint: "+c.Text)
			}
			l = append(l, "These last for this session only. Record lasting ones in AGENTS.md so the next session starts with them.")
			out = append(out, StatusSection{"Learnings (candidates for AGENTS.md)", l})
		}
	} else {
		out = append(out, StatusSection{"Alignment", []string{"disabled"}})
	}

	if e := s.Evidence; e != nil {
		var lines []string
		if r := e.LastReport; r != nil {
			line := "last completion: " + string(r.Status)
			if r.Detail != "" {
				line += " (" + r.Detail + ")"
			}
			lines = append(lines, line)
		} else {
			lines = append(lines, "no completion assessed in this request")
		}
		if len(e.Checks) > 0 {
			parts := make([]string, len(e.Checks))
			for i, ch := range e.Checks {
				parts[i] = ch.Command + " " + map[bool]string{true: "passed", false: "failed"}[ch.Passed]
			}
			lines = append(lines, "checks: "+strings.Join(parts, "; "))
		}
		if len(e.PendingChanges) > 0 {
			lines = append(lines, "changed since last passing check: "+strings.Join(e.PendingChanges, ", "))
		}
		if len(e.VerifyCommands) > 0 {
			lines = append(lines, "verification commands: "+strings.Join(e.VerifyCommands, ", "))
		} else {
			lines = append(lines, "verification commands: not declared (common test, build, and lint commands count)")
		}
		if sl := e.Slices; sl != nil {
			if sl.ChangeSizeAvailable {
				lines = append(lines, fmt.Sprintf("changed in this request: about %d lines in %d files", sl.ChangedLines, sl.ChangedFiles))
			} else {
				lines = append(lines, "change size: unavailable (needs a git repository)")
			}
			for _, o := range sl.Oversized {
				lines = append(lines, fmt.Sprintf("over the file-size guideline: %s (%d lines)", o.Path, o.Lines))
			}
		} else {
			lines = append(lines, "slice signals: disabled")
		}
		out = append(out, StatusSection{"Evidence", lines})
	} else {
		out = append(out, StatusSection{"Evidence", []string{"disabled"}})
	}

	if c := s.Context; c != nil {
		out = append(out, StatusSection{"Context", []string{
			fmt.Sprintf("elided tool results: %d in %d batches", c.ElidedResults, c.Batches),
			"characters kept out of requests: " + groupThousands(c.ElidedChars),
		}})
	} else {
		out = append(out, StatusSection{"Context", []string{"disabled"}})
	}

	if sk := s.Skills; sk != nil {
		var lines []string
		for _, u := range sk.Usage {
			lines = append(lines, fmt.Sprintf("%s: %d loads, fanout %d, effective uptake %d%%, phases %d/%d/%d%%",
				u.Skill, u.Events, u.Fanout, pct(u.EffectiveUptake), pct(u.Early), pct(u.Middle), pct(u.Late)))
		}
		if len(sk.Usage) == 0 {
			lines = append(lines, "no skill resources loaded yet")
		}
		for _, f := range sk.Findings {
			lines = append(lines, f.Skill+": "+f.Message)
		}
		out = append(out, StatusSection{"Skills", lines})
	} else {
		out = append(out, StatusSection{"Skills", []string{"disabled"}})
	}
	return out
}

// Format renders the status as plain text: a title line per section and
// its lines indented by two spaces, sections separated by a blank line.
func (s Status) Format() string {
	var b strings.Builder
	for i, sec := range s.Sections() {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(sec.Title)
		b.WriteByte('\n')
		for _, l := range sec.Lines {
			b.WriteString("  ")
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func pct(f float64) int { return int(math.Round(f * 100)) }

func groupThousands(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
