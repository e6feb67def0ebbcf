package laya

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// The [laya:plan] message: role, skills, tools and validation for the
// routed model, sent after the user's message (never in the system prompt,
// so the prompt cache stays valid).

// PlanCustomType and LessonsCustomType are the hidden custom messages.
const (
	PlanCustomType    = "laya.plan"
	LessonsCustomType = "laya.lessons"
)

var toolLabels = map[string]string{
	"requires_write": "file edits", "requires_shell": "shell", "requires_tests": "tests", "requires_web": "web",
	"requires_browser": "browser", "requires_database": "database", "requires_git": "git",
}

var validationHints = map[string]string{
	"syntax":           "check formatting or syntax of what changed",
	"compile":          "run the type check or build",
	"unit_test":        "run the unit tests that cover the change",
	"integration_test": "run the integration or end-to-end tests of the affected flow",
	"review":           "review the change for security, data and architectural impact, then run the relevant tests",
}

// Skill is an available skill the plan may name.
type Skill struct {
	Name        string
	Description string
}

// PlanInput is what the plan text is built from.
type PlanInput struct {
	Assessment  Assessment
	Policy      Policy
	Skills      []string
	Deactivated []string
	Lessons     string
}

// PlanText renders the hidden plan message.
func PlanText(in PlanInput) string {
	a, p := in.Assessment, in.Policy
	pct := func(x float64) int { return int(math.Round(x * 100)) }
	lines := []string{
		"[laya:plan] Execution plan from the harness router for this request (guidance, not a constraint):",
		fmt.Sprintf("- Task: %s, scope %s, complexity %d%%, risk %d%%.", strings.ReplaceAll(a.Task.Type, "_", " "),
			strings.ReplaceAll(a.Task.Scope, "_", " "), pct(a.Task.Complexity), pct(a.Task.Risk)),
		fmt.Sprintf("- Role: act as %s (%s).", a.Agent, AgentDescription(a.Agent)),
	}
	if len(in.Skills) > 0 {
		lines = append(lines, "- Skills likely relevant: "+strings.Join(in.Skills, ", ")+". Load one only when a step needs it.")
	}
	var need, not []string
	for _, id := range ToolRequirements {
		if a.Tools[id] {
			need = append(need, toolLabels[id])
		} else {
			not = append(not, toolLabels[id])
		}
	}
	tools := "read-only"
	if len(need) > 0 {
		tools = "needs " + strings.Join(need, ", ")
	}
	if len(not) > 0 {
		tools += "; not expected: " + strings.Join(not, ", ")
	}
	lines = append(lines, "- Tools: "+tools+".")
	if len(in.Deactivated) > 0 {
		lines = append(lines, "- Deactivated for this request: "+strings.Join(in.Deactivated, ", ")+".")
	}
	if p.Validation != "none" && p.Validation != "" {
		label := "- Validation"
		if p.ValidationRequired {
			label += " (required)"
		}
		lines = append(lines, fmt.Sprintf("%s: %s before reporting completion.", label, validationHints[p.Validation]))
	}
	if len(p.Rules) > 0 {
		lines = append(lines, "- Sensitive area: "+strings.Join(p.Rules, ", ")+". Prefer the safest correct change.")
	}
	if a.Task.Ambiguity >= 0.75 {
		lines = append(lines, "- The request is open: confirm the goal before large changes.")
	}
	parts := []string{strings.Join(lines, "\n")}
	if in.Lessons != "" {
		parts = append(parts, in.Lessons)
	}
	return strings.Join(parts, "\n\n")
}

// skillFamilies are keywords per agent family for skill scoring.
var skillFamilies = map[string]string{
	"software":  "code implement refactor typescript javascript python java golang rust",
	"backend":   "api backend server service rest graphql queue spring node",
	"frontend":  "frontend ui ux css react vue angular component accessibility design",
	"mobile":    "mobile android ios swift kotlin flutter react-native",
	"devops":    "devops ci deploy docker kubernetes infra terraform release",
	"database":  "database sql postgres mysql migration schema query cockroach",
	"security":  "security auth oauth vulnerab secret crypto audit compliance",
	"architect": "architecture system-design design ddd distributed event adr",
	"qa":        "test qa testing coverage e2e playwright vitest jest",
	"research":  "research explain analysis docs compare documentation",
}

func agentFamily(agent string) string {
	switch {
	case strings.HasPrefix(agent, "backend"):
		return "backend"
	case strings.HasPrefix(agent, "frontend"), agent == "product-designer":
		return "frontend"
	case strings.HasPrefix(agent, "mobile"):
		return "mobile"
	case strings.HasPrefix(agent, "devops"), agent == "site-reliability-engineer":
		return "devops"
	case strings.HasPrefix(agent, "database"):
		return "database"
	case strings.HasPrefix(agent, "security"):
		return "security"
	case agent == "software-architect", agent == "principal-engineer":
		return "architect"
	case agent == "qa-engineer", agent == "quality-assurance":
		return "qa"
	case agent == "researcher":
		return "research"
	}
	return "software"
}

var requestWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[a-z0-9-]{4,}`) })
var nonAlnum = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) })

// PickSkills returns up to three skills for the request: family keywords
// in the skill's name and description, plus two per name part that the
// request mentions.
func PickSkills(request, agent string, skills []Skill) []string {
	words := map[string]bool{}
	for _, w := range requestWord().FindAllString(strings.ToLower(request), -1) {
		words[w] = true
	}
	fam := strings.Fields(skillFamilies[agentFamily(agent)])
	type sc struct {
		name  string
		score int
	}
	var list []sc
	for _, s := range skills {
		hay := strings.ToLower(s.Name + " " + s.Description)
		score := 0
		for _, k := range fam {
			if strings.Contains(hay, k) {
				score++
			}
		}
		for _, part := range nonAlnum().Split(strings.ToLower(s.Name), -1) {
			if part != "" && words[part] {
				score += 2
			}
		}
		if score > 0 {
			list = append(list, sc{s.Name, score})
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
		}
		return list[i].name < list[j].name
	})
	var out []string
	for i := 0; i < len(list) && i < 3; i++ {
		out = append(out, list[i].name)
	}
	return out
}

// Tool routing modes.
const (
	ToolRoutingAdvise  = "advise"
	ToolRoutingEnforce = "enforce"
)

var toolPatterns = sync.OnceValue(func() []struct {
	re   *regexp.Regexp
	reqs []string
} {
	type p = struct {
		re   *regexp.Regexp
		reqs []string
	}
	return []p{
		{regexp.MustCompile(`^(edit|write|multi_?edit|apply_patch)$`), []string{"requires_write"}},
		{regexp.MustCompile(`^bash$`), []string{"requires_shell", "requires_tests", "requires_git"}},
		{regexp.MustCompile(`web|fetch|search_web|http`), []string{"requires_web"}},
		{regexp.MustCompile(`browser|playwright|puppeteer`), []string{"requires_browser"}},
		{regexp.MustCompile(`sql|database|\bdb\b|postgres|mysql`), []string{"requires_database"}},
	}
})

// UnneededTools returns the active tools the request does not need: tools
// that match at least one requirement pattern, all of whose matched
// requirements are false. Tools the router does not recognize stay.
func UnneededTools(a Assessment, active []string) []string {
	var out []string
	for _, name := range active {
		matched, needed := false, false
		for _, p := range toolPatterns() {
			if !p.re.MatchString(name) {
				continue
			}
			matched = true
			for _, r := range p.reqs {
				if a.Tools[r] {
					needed = true
				}
			}
		}
		if matched && !needed {
			out = append(out, name)
		}
	}
	return out
}
