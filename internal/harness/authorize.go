package harness

import (
	"regexp"
	"strings"
	"sync"
)

// Ways a gated call was allowed (Decision.Via).
const (
	ViaRequest    = "request"    // the latest developer message named the operation
	ViaGrant      = "grant"      // an affirmative answer after the agent asked
	ViaAuthorizer = "authorizer" // the confirm dialog (TUI/RPC)
)

// Kinds of block (Decision.Kind).
const (
	BlockAuthorization = "authorization"
	BlockScope         = "scope"
)

// Texts the model sees when a call is blocked. Restore recognises them in
// tool results, so they are part of the persisted contract.
const (
	blockedPolicyPrefix   = "Blocked by the harness alignment policy: "
	blockedDeclinedPrefix = "Blocked: the developer declined this "
	scopeBlockReason      = blockedPolicyPrefix + "the developer asked a question and did not request changes. " +
		"Answer the question first, propose the change, and wait for approval. " +
		"If you are certain the developer's message requests this change, you may retry the call."
	notAuthorizedMarker = "and the developer has not authorized it."
)

func authorizationBlockReason(toolName string, e Effect) string {
	subject := e.Command
	if subject == "" {
		subject = toolName
	}
	return blockedPolicyPrefix + "`" + clip(subject, 160) + "` is " + article(string(e.Kind)) + " operation (" +
		reasonOf(e) + ") " + notAuthorizedMarker + " " +
		"Explain what it would do and ask the developer to confirm. If they confirm, retry the same call unchanged."
}

// article prefixes a kind with "a" or "an".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}

func declinedReason(e Effect) string {
	return blockedDeclinedPrefix + string(e.Kind) + " operation (" + reasonOf(e) +
		"). Do not retry it; continue without it or ask how to proceed."
}

func reasonOf(e Effect) string {
	if e.Reason == "" {
		return "unspecified effect"
	}
	return e.Reason
}

// Fingerprint identifies an operation for one-shot grants:
// "<tool>:<command or paths joined with ,>" with whitespace collapsed.
func Fingerprint(toolName string, e Effect) string {
	subject := e.Command
	if subject == "" {
		subject = strings.Join(e.Paths, ",")
	}
	return toolName + ":" + strings.Join(strings.Fields(subject), " ")
}

type operationWord struct {
	command *regexp.Regexp
	// commandExcept rejects a command match by the text after it.
	commandExcept func(rest string) bool
	request       *regexp.Regexp
	// targets, when set, must also be named in the request (deletions).
	targets func(command string) []string
}

var forceFlagRe = lazyRe(`^[^\n;&|]*(?:--force|\s-f\b|\s\+\S)`)

// operationWords authorize matching commands when the developer's latest
// request names them: "push the branch" allows `git push`; "apague o
// diretório dist" allows `rm -r dist` (operation and target named), while
// "remove the unused import" allows no deletion.
var operationWords = sync.OnceValue(func() []operationWord {
	w := func(cmd, req string) operationWord {
		return operationWord{command: regexp.MustCompile(cmd), request: regexp.MustCompile(req)}
	}
	plainPush := w(`\b(?:git|docker)\s+push\b`, wordsPattern("push", "pushe", "faça push", "dê push"))
	plainPush.commandExcept = forceFlagRe().MatchString
	del := w(`(?i)\b(?:rm|Remove-Item|rmdir|rd|del)\b`, wordsPattern("delete", "remove", "rm", "clean", "drop", "wipe",
		"apague", "apagar", "remova", "remover", "exclua", "excluir", "limpe", "limpar"))
	del.targets = deletionTargets
	gh := w(`\bgh\s+(?:pr\s+|issue|release|repo)`, phrasePattern(
		[]string{"create", "open", "close", "comment", "post", "crie", "criar", "abra", "abrir", "feche", "fechar", "comente", "comentar"},
		[]string{"pr", "pull request", "issue", "release", "repo"}))
	prMerge := regexp.MustCompile(`^merge\b`)
	gh.commandExcept = func(rest string) bool { return prMerge.MatchString(rest) }
	return []operationWord{
		w(`\bgh\s+pr\s+merge\b`, wordsPattern("merge", "mergear", "mescle", "mesclar")),
		w(`\bgit\s+push\b[^\n;&|]*(?:--force|\s-f\b|\s\+\S)`, wordsPattern("force push", "force-push", `push --force`, "push -f", "forçar o push", "push forçado")),
		plainPush,
		w(`\bpublish\b`, wordsPattern("publish", "publique", "publicar")),
		w(`\bdeploy\b|--prod\b`, wordsPattern("deploy", "implante", "implantar", "ship")),
		w(`\breset\b`, wordsPattern("reset", "resete", "resetar")),
		w(`\brebase\b`, wordsPattern("rebase")),
		del,
		gh,
		w(`\b(?:kubectl|helm|terraform|pulumi|docker)\b`, wordsPattern("kubectl", "helm", "terraform", "pulumi", "docker", "destroy", "infra")),
		w(`\bcurl\b`, wordsPattern("curl", "post", "put", "patch")),
	}
})

func (o operationWord) matchesCommand(cmd string) bool {
	for _, loc := range o.command.FindAllStringIndex(cmd, -1) {
		if o.commandExcept == nil || !o.commandExcept(cmd[loc[1]:]) {
			return true
		}
	}
	return false
}

var deletionArgsRe = lazyRe(`(?i)\b(?:rm|Remove-Item|rmdir|rd|del)\b([^\n;&|]*)`)

// deletionTargets are the basenames of the non-flag operands after the first
// deletion verb of a command, unquoted, trailing slashes removed.
func deletionTargets(command string) []string {
	m := deletionArgsRe().FindStringSubmatch(command)
	if m == nil {
		return nil
	}
	var out []string
	for _, tok := range strings.Fields(m[1]) {
		if strings.HasPrefix(tok, "-") || strings.HasPrefix(tok, "/") {
			continue
		}
		tok = strings.NewReplacer(`"`, "", `'`, "").Replace(tok)
		tok = strings.TrimRight(tok, `\/`)
		if i := strings.LastIndexAny(tok, `\/`); i >= 0 {
			tok = tok[i+1:]
		}
		if tok != "" && tok != "." && tok != "*" {
			out = append(out, tok)
		}
	}
	return out
}

var (
	clauseSplitRe = lazyRe(`[.,;!?\n]|(?:^|[^\p{L}])(?:but|mas|porém|porem)(?:[^\p{L}]|$)`)
	reservationRe = lazyRe(wordsPattern("no", "not", "don't", "dont", "never", "but", "não", "nao", "nunca", "mas",
		"porém", "porem", "exceto", "except"))
	affirmativeRe = lazyRe(`(?i)^\s*(?:y|yes|yep|yeah|sure|ok|okay|go ahead|proceed|do it|confirm|confirmed|approve|approved|sim|s|pode|manda|vai|confirmo|autorizo|prossiga|faça|faca|isso)` + wordEnd)
)

// affirmativeClauses keeps the clauses of a request without a reservation
// word: "não faça push ainda" names the operation to forbid it, and "push it,
// but not with force" allows no force push.
func affirmativeClauses(request string) string {
	var keep []string
	for _, clause := range clauseSplitRe().Split(strings.ToLower(request), -1) {
		if !reservationRe().MatchString(clause) {
			keep = append(keep, clause)
		}
	}
	return strings.Join(keep, " . ")
}

// namedInRequest reports whether the developer's latest request authorizes
// a gated command by naming it in an affirmative clause.
func namedInRequest(command, request string) bool {
	if command == "" || request == "" {
		return false
	}
	clauses := affirmativeClauses(request)
	for _, o := range operationWords() {
		if !o.matchesCommand(command) || !o.request.MatchString(clauses) {
			continue
		}
		if o.targets == nil {
			return true
		}
		for _, t := range o.targets(command) {
			if strings.Contains(clauses, strings.ToLower(t)) {
				return true
			}
		}
	}
	return false
}

// authorizedByRequest reports whether the developer's latest request
// authorizes every gated operation of e: each parsed operation must be
// named (operation words, and targets for deletions), and an opaque one,
// whose effect nobody can name, only by the request quoting the command
// itself. Effects without parsed operations (custom classifiers,
// PowerShell) are matched on their command text.
func authorizedByRequest(e Effect, request string) bool {
	if len(e.ops) == 0 {
		return namedInRequest(e.Command, request)
	}
	if request == "" {
		return false
	}
	for _, op := range e.ops {
		if op.opaque {
			if !quotesCommand(request, e.Command) {
				return false
			}
			continue
		}
		if !namedInRequest(op.text, request) {
			return false
		}
	}
	return true
}

// quotesCommand reports whether request contains command (whitespace
// collapsed).
func quotesCommand(request, command string) bool {
	c := strings.Join(strings.Fields(command), " ")
	return c != "" && strings.Contains(strings.Join(strings.Fields(request), " "), c)
}

// isApproval reports whether a developer message approves pending operations.
func isApproval(text string) bool {
	return affirmativeRe().MatchString(text) && !reservationRe().MatchString(text)
}
