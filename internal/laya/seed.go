package laya

import (
	"fmt"
	"strings"
)

// Synthetic bootstrap exercises (/laya seed, and the first rows of a new
// dataset). Their labels follow one rule from the task profile (the
// keyword rules' tier rule), so they teach Laya the policy, not evidence.

// DefaultSeedCount is /laya seed's default count.
const DefaultSeedCount = 1100

// seedRand is mulberry32: small, deterministic, the same stream for a
// seed everywhere.
type seedRand struct{ a uint32 }

func (r *seedRand) next() float64 {
	r.a += 0x6D2B79F5
	t := r.a
	t = (t ^ t>>15) * (1 | t)
	t = (t + (t^t>>7)*(61|t)) ^ t
	return float64(t^t>>14) / 4294967296
}

func (r *seedRand) pick(list []string) string { return list[int(r.next()*float64(len(list)))] }

var seedTemplates = map[string][]string{
	"question":      {"What does %s do?", "How does %s work?", "O que faz %s?", "Como funciona %s?", "Where is %s defined?"},
	"code_edit":     {"Change the text of %s", "Bump the version of %s", "Altere o texto de %s", "Rename %s to something clearer", "Update the label of %s"},
	"bug_fix":       {"Fix the crash in %s", "Corrija o erro em %s", "Fix the wrong total shown by %s", "%s returns 500 when the input is empty, fix it", "Conserte %s, está quebrado"},
	"refactor":      {"Refactor %s into smaller functions", "Extract the validation of %s", "Refatore %s", "Split %s into two modules", "Convert %s to async/await"},
	"feature":       {"Add pagination to %s", "Implement export to CSV in %s", "Adicione filtros em %s", "Create an endpoint for %s", "Crie suporte a dark mode em %s"},
	"test":          {"Write unit tests for %s", "Fix the flaky test of %s", "Aumente a cobertura de testes de %s", "Add tests covering %s"},
	"architecture":  {"Design a plugin system for %s", "Propose an architecture to split %s into microservices", "Desenhe uma arquitetura para %s", "Design a distributed cache for %s"},
	"debugging":     {"Investigate why %s hangs intermittently", "Find the root cause of the deadlock in %s", "Investigue por que %s trava", "Why does %s fail on CI?"},
	"security":      {"Fix the SQL injection in %s", "Review %s for XSS vulnerabilities", "Corrija a vulnerabilidade de segurança em %s", "Rotate the secrets used by %s"},
	"research":      {"Compare the options for %s", "Research alternatives to %s", "Pesquise bibliotecas para %s", "List the callers of %s"},
	"documentation": {"Document %s in the README", "Update the changelog for %s", "Escreva a documentação de %s", "Add comments to %s"},
}

var seedObjects = []string{
	"the login form", "the orders page", "the payment service", "the user repository", "the CSV parser",
	"the worker queue", "the settings modal", "the search endpoint", "the build script", "the invoice generator",
	"o botão Salvar", "a tela de pedidos", "o serviço de notificações", "o módulo de relatórios", "a API de clientes",
	"config.yaml", "utils.ts", "the cache layer", "the migration runner", "the session store",
}

// SeedRows returns count synthetic exercises, deterministic for seed 2026.
func SeedRows(count int) []DatasetRow {
	r := &seedRand{a: 2026}
	out := make([]DatasetRow, 0, count)
	for i := 0; i < count; i++ {
		typ := r.pick(TaskTypes)
		req := fmt.Sprintf(r.pick(seedTemplates[typ]), r.pick(seedObjects))
		req = strings.ToUpper(req[:1]) + req[1:]
		split := "train"
		switch x := r.next(); {
		case x >= 0.9:
			split = "test"
		case x >= 0.8:
			split = "val"
		}
		out = append(out, DatasetRow{ID: fmt.Sprintf("r%05d", i+1), State: RowState{Request: req},
			Expected: RuleAssessment(req).Labels(), Source: SourceSynthetic, Split: split})
	}
	return out
}
