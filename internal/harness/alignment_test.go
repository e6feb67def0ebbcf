package harness

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExtractConstraints(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		// English: directive openings
		{"Never use `any` in TypeScript.", []string{"Never use `any` in TypeScript."}},
		{"Always run the linter before committing.", []string{"Always run the linter before committing."}},
		{"Only touch files under src/.", []string{"Only touch files under src/."}},
		{"Avoid global state in the parser", []string{"Avoid global state in the parser"}},
		{"Please keep the public API stable.", []string{"Please keep the public API stable."}},
		{"Prefer small functions over classes", []string{"Prefer small functions over classes"}},
		{"Stick to the standard library.", []string{"Stick to the standard library."}},
		// English: restricting lead + verb anywhere
		{"Fix the bug. Do not change the tests.", []string{"Do not change the tests."}},
		{"You must not push to main!", []string{"You must not push to main!"}},
		{"We should never directly commit generated files", []string{"We should never directly commit generated files"}},
		{"Please don't modify go.mod", []string{"Please don't modify go.mod"}},
		// English: preference
		{"Use pnpm instead of npm", []string{"Use pnpm instead of npm"}},
		{"use slog rather than log for new code", []string{"use slog rather than log for new code"}},
		// Portuguese
		{"Não altere os testes.", []string{"Não altere os testes."}},
		{"Nunca use any no código", []string{"Nunca use any no código"}},
		{"Sempre rode os testes antes do commit.", []string{"Sempre rode os testes antes do commit."}},
		{"Por favor, mantenha a API pública estável.", []string{"Por favor, mantenha a API pública estável."}},
		{"Evite dependências novas", []string{"Evite dependências novas"}},
		{"Corrija o bug; não mexa no parser.", []string{"não mexa no parser."}},
		{"Use pnpm em vez de npm", []string{"Use pnpm em vez de npm"}},
		{"Só commite depois de revisar", []string{"Só commite depois de revisar"}},
		// Lists, code blocks and tags
		{"Rules:\n- Never use panics\n- Always wrap errors", []string{"Never use panics", "Always wrap errors"}},
		{"Fix it.\n```\n// never use this\n```", nil},
		{"<skill name=\"x\">Never use tabs in YAML.</skill> Fix the config.", nil},
		// Not constraints
		{"Fix the login bug", nil},
		{"Should I never use any?", nil},
		{"Never.", nil}, // too short
		{"Why does it always fail on Windows?", nil},
		{"Corrija o bug do login", nil},
	}
	for _, tt := range tests {
		got := ExtractConstraints(tt.text)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ExtractConstraints(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
}

func TestConstraintLedger(t *testing.T) {
	var l constraintLedger
	if !l.insert("Never use any", "message", 1) || l.insert("never USE any", "message", 2) {
		t.Fatal("dedupe is case-insensitive")
	}
	for i := range 14 {
		l.insert(fmt.Sprintf("Always do thing %d", i), "message", 3)
	}
	if len(l.items) != maxConstraints || l.items[0].ID != "c4" || l.items[11].ID != "c15" {
		t.Fatalf("ledger = %d items, first %s last %s", len(l.items), l.items[0].ID, l.items[len(l.items)-1].ID)
	}
	var r constraintLedger
	r.restore(l.items)
	r.insert("Keep it simple please", "api", 4)
	if got := r.items[len(r.items)-1].ID; got != "c16" {
		t.Fatalf("next id after restore = %s, want c16", got)
	}
	long := ""
	for range 50 {
		long += "word "
	}
	var c constraintLedger
	c.insert("Never "+long, "api", 1)
	if n := len([]rune(c.items[0].Text)); n != maxLedgerText {
		t.Fatalf("clipped to %d runes", n)
	}
}

func TestIsQuestionOnly(t *testing.T) {
	tests := []struct {
		text     string
		question bool
		action   bool
	}{
		{"Why does the build fail on Windows?", true, true},
		{"Why does it fail? Please fix it.", false, true},
		{"How does the cache work", true, false},
		{"What is this function for?", true, false},
		{"Can you fix the test?", false, true},
		{"Is the parser thread-safe?", true, false},
		{"Fix the parser", false, true},
		{"Do the migration", false, false},
		{"Could you explain the retry logic?", true, false},
		{"Por que o build falha no Windows?", true, true},
		{"Como funciona o cache?", true, false},
		{"Pode corrigir o teste?", false, true},
		{"Corrija o teste", false, true},
		{"O que faz essa função?", true, false},
		{"Qual é o problema? Por favor, corrija.", false, true},
		{"", false, false},
	}
	for _, tt := range tests {
		if got := IsQuestionOnly(tt.text); got != tt.question {
			t.Errorf("IsQuestionOnly(%q) = %v, want %v", tt.text, got, tt.question)
		}
		if got := RequestsAction(tt.text); got != tt.action {
			t.Errorf("RequestsAction(%q) = %v, want %v", tt.text, got, tt.action)
		}
	}
}

func TestIsCorrection(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"No, use the existing helper.", true},
		{"Não, simplifica isso.", true},
		{"Para, isso tá complicado demais", true},
		{"That's too complex", true},
		{"Actually, use a map.", true},
		{"Wait: keep the old name.", true},
		{"this is over-engineered", true},
		{"That's not what I asked for", true},
		{"Errado, é no outro arquivo", true},
		{"Na verdade, o bug é no parser", true},
		{"Não é isso que eu pedi", true},
		{"Revert the last change", true},
		{"Para o módulo X, adicione testes", false},
		{"Não sei por que falha", false},
		{"No changes needed in docs", false},
		{"Stop words are filtered", false},
		{"Add a retry", false},
	}
	for _, tt := range tests {
		if got := IsCorrection(tt.text); got != tt.want {
			t.Errorf("IsCorrection(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestNamedInRequest(t *testing.T) {
	tests := []struct {
		command, request string
		want             bool
	}{
		{"git push origin main", "push the branch", true},
		{"git push origin main", "commit and push it", true},
		{"git push origin main", "faça push da branch", true},
		{"git push origin main", "fix the bug", false},
		{"git push origin main", "don't push yet", false},
		{"git push origin main", "não faça push ainda", false},
		{"git push --force origin main", "push it, but not with force", false},
		{"git push --force origin main", "push it", false},
		{"git push --force origin main", "force push the branch", true},
		{"git push -f", "rebase and force-push", true},
		{"rm -r dist", "apague o diretório dist", true},
		{"rm -rf build/", "delete the build directory", true},
		{"rm -rf build", "remove the unused import", false},
		{"rm -rf ./out/build", "clean build", true},
		{"rm -rf .", "delete everything", false},
		{"rm -rf build", "don't delete build", false},
		{"Remove-Item dist -Recurse", "remove dist", true},
		{"npm publish", "publish the package", true},
		{"npm publish", "publique o pacote", true},
		{"vercel --prod", "ship it", true},
		{"fly deploy", "deploy to staging", true},
		{"git reset --hard HEAD~1", "reset to the previous commit", true},
		{"git rebase main", "rebase on main", true},
		{"gh pr merge 12", "merge the PR", true},
		{"gh pr merge 12", "create a PR", false},
		{"gh pr create --fill", "open a pull request", true},
		{"gh pr create --fill", "abra um pr", true},
		{"gh issue create -t x", "create an issue for it", true},
		{"gh pr create --fill", "merge it", false},
		{"kubectl apply -f k8s.yaml", "apply with kubectl", true},
		{"terraform destroy", "destroy the infra", true},
		{"curl -X POST https://x", "post it with curl", true},
		{"docker push img", "push the image", true},
		{`psql -c "DROP TABLE users"`, "drop the users table", false}, // no rule names SQL: ask
	}
	for _, tt := range tests {
		if got := namedInRequest(tt.command, tt.request); got != tt.want {
			t.Errorf("namedInRequest(%q, %q) = %v, want %v", tt.command, tt.request, got, tt.want)
		}
	}
}

func TestIsApproval(t *testing.T) {
	yes := []string{"yes", "Yes, go ahead", "y", "ok", "OK!", "okay", "sure", "go ahead", "proceed", "do it", "sim", "Sim, pode", "s", "pode", "manda", "confirmo", "autorizo", "faça", "isso"}
	no := []string{"no", "yes but not now", "ok, mas não agora", "not yet", "wait", "simply do it", "yesterday", "nope", "sim, mas sem force"}
	for _, s := range yes {
		if !isApproval(s) {
			t.Errorf("isApproval(%q) = false", s)
		}
	}
	for _, s := range no {
		if isApproval(s) {
			t.Errorf("isApproval(%q) = true", s)
		}
	}
}

func TestDeveloperProse(t *testing.T) {
	in := "Fix it.\n```go\nnever()\n```\n<file name=\"a\">always x</file>\nUse <T> generics."
	got := developerProse(in)
	want := "Fix it.\n \n \nUse <T> generics."
	if got != want {
		t.Fatalf("developerProse = %q, want %q", got, want)
	}
}

// sentences splits as the byte loop it replaced did, on texts made of
// terminators, spaces, newlines and letters in every arrangement.
func TestSentencesMatchesByteLoop(t *testing.T) {
	ref := func(prose string) []string {
		var out []string
		for _, line := range strings.Split(prose, "\n") {
			start := 0
			for i := 0; i+1 < len(line); i++ {
				c := line[i]
				if (c == '.' || c == '!' || c == ';') && isSpaceByte(line[i+1]) {
					out = append(out, line[start:i+1])
					start = i + 1
				}
			}
			out = append(out, line[start:])
		}
		return out
	}
	alphabet := ".!; \t\nab"
	texts := []string{"", ".", ". ", "a. b! c; d", "end.", "x.\ty!\n;z", strings.Repeat("lorem ipsum ", 300)}
	for n := range 6 { // every text of up to 5 letters
		total := 1
		for range n {
			total *= len(alphabet)
		}
		for k := range total {
			b := make([]byte, n)
			for i, v := 0, k; i < n; i, v = i+1, v/len(alphabet) {
				b[i] = alphabet[v%len(alphabet)]
			}
			texts = append(texts, string(b))
		}
	}
	for _, s := range texts {
		if got, want := sentences(s), ref(s); !slices.Equal(got, want) {
			t.Fatalf("sentences(%q) = %q, want %q", s, got, want)
		}
	}
}
