package cli

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// allFlags are the flags ParseArgs accepts (upstream-spec-core.md §1.4,
// plus --laya-policy).
var allFlags = strings.Fields(`-h --help -v --version --mode -p --print --export --provider --model --api-key
	--thinking --models --list-models --laya-policy -c --continue -r --resume --session --session-id --fork
	--session-dir --no-session -n --name -t --tools -xt --exclude-tools -nbt --no-builtin-tools -nt --no-tools
	-e --extension -ne --no-extensions --skill --prompt-template --theme -ns --no-skills -np
	--no-prompt-templates --no-themes --use-theme -nc --no-context-files --system-prompt
	--append-system-prompt --tui-mode --verbose -a --approve -na --no-approve --offline`)

func words(s string) map[string]bool {
	w := map[string]bool{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\n' || r == ',' || r == '/' }) {
		w[f] = true
	}
	return w
}

func fits(t *testing.T, what, page string, cols, rows int) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(page, "\n"), "\n")
	if rows > 0 && len(lines) > rows {
		t.Errorf("%s is %d lines, more than %d", what, len(lines), rows)
	}
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > cols {
			t.Errorf("%s line %d is %d columns, more than %d: %q", what, i+1, n, cols, l)
		}
	}
}

// relay --help fits an 80×40 terminal, lists every flag and the theme
// names; every flag has its own entry with its default in a help topic.
func TestHelpFitsAndCoversEveryFlag(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Main(t.Context(), []string{"--help"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	fits(t, "--help", out.String(), 80, 40)
	listed := words(out.String())
	for _, f := range allFlags {
		if !listed[f] {
			t.Errorf("--help does not list %s", f)
		}
	}
	for _, theme := range []string{"system", "dark", "light"} {
		if !listed[theme] {
			t.Errorf("--help does not name the %s theme", theme)
		}
	}
	described := map[string]bool{}
	for _, name := range helpTopicNames() {
		var page bytes.Buffer
		if code := Main(t.Context(), []string{"help", name}, strings.NewReader(""), &page, &errOut); code != 0 {
			t.Fatalf("help %s: exit %d", name, code)
		}
		fits(t, "help "+name, page.String(), 80, 0)
		if !strings.Contains(out.String(), name) {
			t.Errorf("--help does not name the topic %s", name)
		}
		for _, l := range strings.Split(page.String(), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "-") {
				for w := range words(l) {
					described[w] = true
				}
			}
		}
	}
	for _, f := range allFlags {
		if !described[f] {
			t.Errorf("no help topic has an entry for %s", f)
		}
	}
	var bad bytes.Buffer
	if code := Main(t.Context(), []string{"help", "nope"}, strings.NewReader(""), &out, &bad); code != 1 || !strings.Contains(bad.String(), "modes") {
		t.Errorf("unknown topic: exit %d, %q", code, bad.String())
	}
}
