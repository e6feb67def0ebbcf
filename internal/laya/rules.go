package laya

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Keyword fallback: when the classifier is down, unregistered or
// answered badly, English and Portuguese keyword rules answer instead with
// a fixed confidence of 0.5. Patterns are substring matches on the
// lowercased request unless \b is written.

// RulesConfidence is the confidence of every keyword-rule assessment.
const RulesConfidence = 0.5

type typeRule struct {
	typ string
	re  *regexp.Regexp
}

type ruleSet struct {
	types      []typeRule
	opener     *regexp.Regexp
	simple     *regexp.Regexp // complexity -> 0
	hard       *regexp.Regexp // complexity -> 3
	expert     *regexp.Regexp // complexity -> 4
	sensitive  *regexp.Regexp
	riskForce  *regexp.Regexp
	scopeLine  *regexp.Regexp
	scopeRepo  *regexp.Regexp
	scopeMulti *regexp.Regexp
	scopeFile  *regexp.Regexp
	ambiguous  *regexp.Regexp
	agents     []typeRule
	web        *regexp.Regexp
	browser    *regexp.Regexp
	database   *regexp.Regexp
	git        *regexp.Regexp
}

func anyOf(words ...string) *regexp.Regexp {
	return regexp.MustCompile(`(?:` + strings.Join(words, "|") + `)`)
}

// rules compiles the tables on first use; nothing runs at start-up.
var rules = sync.OnceValue(func() *ruleSet {
	return &ruleSet{
		types: []typeRule{
			{"security", anyOf(`vulnerab`, `injec`, `injeç`, `xss`, `csrf`, `exploit`, `secur`, `segurança`, `oauth`, `password`, `senha`, `secret`, `segredo`)},
			{"architecture", anyOf(`architect`, `arquitet`, `system design`, `microservi`, `microsservi`, `\badr\b`, `desenhe uma`, `design a `)},
			{"debugging", anyOf(`investigat`, `investig`, `root cause`, `causa raiz`, `deadlock`, `intermittent`, `intermitente`, `hangs`, `trava`, `\bwhy\b.*\bfail`, `por que.*falh`)},
			{"test", anyOf(`\btests?\b`, `\btestes?\b`, `coverage`, `cobertura`, `flaky`, `type ?check`, `checagem`)},
			{"bug_fix", anyOf(`\bfix\b`, `\bbug`, `corrij`, `conserte`, `arrume`, `broken`, `quebr`, `crash`, `\berro`, `\berror`, `wrong`, `errad`, `returns? 500`)},
			{"refactor", anyOf(`refactor`, `refator`, `extract`, `extraia`, `\bsplit\b`, `divida`, `rename`, `renomei`, `\bmigrate\b.*\bto\b`, `migre`, `convert`, `converta`)},
			{"documentation", anyOf(`readme`, `\bdocs?\b`, `document`, `changelog`, `comment`, `comentário`, `comentario`)},
			{"research", anyOf(`compare`, `pesquis`, `research`, `map every`, `mapeie`, `list the`, `liste os`)},
			{"feature", anyOf(`\badd\b`, `adicion`, `implement`, `create`, `crie`, `\bbuild\b`, `support`, `suporte`, `endpoint`, `integrat`, `integre`, `deploy`, `pipeline`)},
		},
		opener:     regexp.MustCompile(`^(?:(?:what|how|why|where|which|when)\b|is |are |can |does |o que|como\b|por que|onde\b|qual|quando\b|isso\b|da |dá )`),
		simple:     anyOf(`typo`, `digitação`, `rename`, `renomei`, `texto`, `\btext\b`, `bump`, `versão do`),
		hard:       anyOf(`race condition`, `condição de corrida`, `concurren`, `concorrên`, `memory leak`, `vazamento`, `multi-tenant`, `zero downtime`, `sem downtime`),
		expert:     anyOf(`distribut`, `distribuíd`, `crdt`, `corrup`, `plugin system`, `sistema de plugins`, `deadlock`, `monorepo`),
		sensitive:  anyOf(`auth`, `login`, `oauth`, `token`, `password`, `senha`, `secret`, `segredo`, `credential`, `credencia`, `permiss`, `payment`, `pagamento`, `stripe`, `vulnerab`, `injec`, `injeç`, `production (?:database|db|data)`, `banco de produ`, `produção.*(?:migra|banco)`, `(?:migra|banco).*produç`),
		riskForce:  anyOf(`produç`, `production`, `\bdrop\b`, `delete`, `apag`),
		scopeLine:  anyOf(`\btypo`, `digita`, `button`, `botão`, `\bline\b`, `linha`),
		scopeRepo:  anyOf(`monorepo`, `repository`, `repositório`, `whole`, `inteiro`, `all (?:the )?packages`, `todos os pacotes`),
		scopeMulti: anyOf(`services`, `serviços`, `across`, `between`, `entre`, `packages`, `pacotes`),
		scopeFile:  regexp.MustCompile(`\.[a-z]{1,5}\b`),
		ambiguous:  anyOf(`investig`, `find out`, `descubra`, `evaluate`, `avalie`, `propose`, `proponha`),
		agents: []typeRule{
			{"mobile-engineer", anyOf(`android`, `\bios\b`, `mobile`, `flutter`, `react native`, `swift`, `kotlin`)},
			{"devops-engineer", anyOf(`docker`, `\bci\b`, `pipeline`, `deploy`, `kubernetes`, `\bk8s\b`, `release`, `workflow`, `terraform`)},
			{"database-engineer", anyOf(`\bsql\b`, `database`, `banco de dados`, `\bindex`, `índice`, `indice`, `migration`, `query`, `consulta`, `schema`)},
			{"frontend-engineer", anyOf(`\bcss\b`, `\bui\b`, `button`, `botão`, `component`, `página`, `\bpage\b`, `modal`, `dropdown`, `react`, `html`, `dark mode`, `layout`)},
			{"backend-engineer", anyOf(`\bapi\b`, `endpoint`, `serviç`, `service`, `queue`, `fila`, `worker`, `server`, `backend`)},
		},
		web:      anyOf(`official doc`, `documentação oficial`, `latest version`, `última vers`, `search the web`, `pesquis`),
		browser:  anyOf(`browser`, `navegador`, `mobile`, `celular`, `focus`, `foco`),
		database: anyOf(`\bsql\b`, `database`, `banco`),
		git:      anyOf(`\bgit\b`, `commit`, `branch`, `\bpush\b`, `merge`, `rebase`),
	}
})

var defaultComplexity = map[string]int{"question": 1, "code_edit": 1, "bug_fix": 2, "refactor": 2, "feature": 2,
	"test": 1, "architecture": 3, "debugging": 3, "security": 3, "research": 1, "documentation": 1}

// RuleAssessment classifies a request with the keyword rules.
func RuleAssessment(request string) Assessment {
	rs := rules()
	text := strings.ToLower(request)
	trimmed := strings.TrimSpace(text)
	isQuestion := strings.HasSuffix(trimmed, "?") || rs.opener.MatchString(trimmed)

	typ := ""
	for _, r := range rs.types {
		if r.re.MatchString(text) {
			typ = r.typ
			break
		}
	}
	switch {
	case typ == "" && isQuestion:
		typ = "question"
	case typ == "":
		typ = "code_edit"
	case strings.HasSuffix(trimmed, "?") && rs.opener.MatchString(trimmed):
		typ = "question"
	}

	complexity := defaultComplexity[typ]
	if rs.simple.MatchString(text) {
		complexity = 0
	}
	if rs.hard.MatchString(text) {
		complexity = 3
	}
	if rs.expert.MatchString(text) {
		complexity = 4
	}
	security := typ == "security" || rs.sensitive.MatchString(text)

	risk := 0
	switch {
	case complexity >= 3:
		risk = 2
	case complexity >= 2:
		risk = 1
	}
	if security || rs.riskForce.MatchString(text) {
		risk = 3
	}

	scope := "module"
	switch {
	case rs.scopeLine.MatchString(text):
		scope = "single_line"
	case rs.scopeRepo.MatchString(text):
		scope = "repository"
	case rs.scopeMulti.MatchString(text):
		scope = "multi_module"
	case rs.scopeFile.MatchString(text):
		scope = "single_file"
	}

	ambiguity := 0
	switch {
	case utf8.RuneCountInString(trimmed) < 30:
		ambiguity = 2
	case rs.ambiguous.MatchString(text):
		ambiguity = 1
	}

	tier := 0
	if complexity > 1 {
		tier = complexity - 1
	}
	if (risk >= 2 || security) && tier < 2 {
		tier = 2
	}
	if tier > 3 {
		tier = 3
	}

	agent := ""
	switch {
	case typ == "security":
		agent = "security-engineer"
	case typ == "architecture" || complexity >= 4:
		agent = "software-architect"
	case typ == "test":
		agent = "qa-engineer"
	case typ == "question" || typ == "research":
		agent = "researcher"
	default:
		for _, r := range rs.agents {
			if r.re.MatchString(text) {
				agent = r.typ
				break
			}
		}
		if agent == "" {
			agent = "software-engineer"
		}
	}

	validation := "unit_test"
	switch {
	case typ == "question" || typ == "research":
		validation = "none"
	case typ == "documentation":
		validation = "syntax"
	case typ == "code_edit":
		validation = "compile"
	case typ == "architecture" || typ == "security":
		validation = "review"
	case complexity >= 3:
		validation = "integration_test"
	}

	tools := map[string]bool{
		"requires_write": !(typ == "question" || typ == "research" || typ == "architecture") &&
			!strings.HasPrefix(trimmed, "run ") && !strings.HasPrefix(trimmed, "rode "),
		"requires_shell":    agent == "devops-engineer" || typ == "debugging",
		"requires_tests":    validation == "compile" || validation == "unit_test" || validation == "integration_test",
		"requires_web":      rs.web.MatchString(text),
		"requires_browser":  agent == "frontend-engineer" && rs.browser.MatchString(text),
		"requires_database": agent == "database-engineer" || rs.database.MatchString(text),
		"requires_git":      rs.git.MatchString(text),
	}
	return Assessment{
		Source: SourceHeuristic,
		Task: TaskProfile{Type: typ, Complexity: float64(complexity) / 4, Risk: float64(risk) / 3,
			Ambiguity: float64(ambiguity) / 2, Reasoning: float64(complexity) / 4, Scope: scope},
		Recommendation:    Recommendation{Tier: Tier(tier), Effort: Efforts[complexity]},
		Agent:             agent,
		Validation:        validation,
		Tools:             tools,
		SecuritySensitive: security,
		Confidence:        RulesConfidence,
	}
}
