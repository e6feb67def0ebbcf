package harness

import (
	"strings"
)

// CompletionStatus is the assessment of a final assistant message.
type CompletionStatus string

const (
	// StatusVerified: changes were made and a check passed after the last
	// change, or only documentation changed.
	StatusVerified CompletionStatus = "verified"
	// StatusUnverified: completion claimed, no check passed after the last change.
	StatusUnverified CompletionStatus = "unverified"
	// StatusContradicted: checks claimed to pass, but the last one failed or
	// none ran; or all tests claimed while the last check was name-filtered.
	StatusContradicted CompletionStatus = "contradicted"
	// StatusNoEffect: a requested change reported done, but calls only read.
	StatusNoEffect CompletionStatus = "no-effect"
	// StatusAcknowledged: the message states what was not verified or failed.
	StatusAcknowledged CompletionStatus = "acknowledged"
	// StatusNoClaim: nothing that needs evidence was claimed.
	StatusNoClaim CompletionStatus = "no-claim"
)

// Flagged reports whether the status asks for a verification request.
func (s CompletionStatus) Flagged() bool {
	return s == StatusUnverified || s == StatusContradicted || s == StatusNoEffect
}

// Check is one verification command run in the current request.
type Check struct {
	Command string `json:"command"`
	Passed  bool   `json:"passed"`
	Step    int    `json:"step"`
	// NameFiltered: the run selected tests by name (-t, --grep, -k ...).
	NameFiltered bool `json:"nameFiltered"`
}

// CompletionReport is the assessment of one final assistant message.
type CompletionReport struct {
	Status       CompletionStatus `json:"status"`
	Claimed      bool             `json:"claimed"`
	ChangedPaths []string         `json:"changedPaths"`
	Mutations    int              `json:"mutations"`
	Checks       []Check          `json:"checks"`
	Detail       string           `json:"detail,omitempty"`
	// Gated: the harness sent a verification request for this report.
	Gated bool `json:"gated"`
}

// Warning is the notice for the developer when a flagged report stands
// because the verification request was already spent; "" otherwise.
func (r *CompletionReport) Warning() string {
	if r == nil || !r.Status.Flagged() || r.Gated {
		return ""
	}
	detail := r.Detail
	if detail == "" {
		detail = string(r.Status)
	}
	return "Harness: completion reported without evidence (" + detail + ")."
}

const maxGatesPerRequest = 1

var (
	nameFilterRe = lazyRe(`\s(?:-t|--testNamePattern|--test-name-pattern|--grep|-g|-k|--filter|--test-name)(?:[\s=]|$)`)
	docPathRe    = lazyRe(`(?i)\.(?:md|mdx|markdown|txt|rst|adoc)$`)

	completionClaimRe = lazyRe(wordsPattern("done", "complete", "completed", "finished", "implemented", "fixed",
		"resolved", "all set", "ready", "works", "working", "successfully", "concluído", "concluída", "concluido",
		"pronto", "pronta", "feito", "finalizado", "finalizada", "implementado", "implementada", "corrigido",
		"corrigida", "resolvido", "resolvida", "funcionando", "funciona", "com sucesso"))
	checkClaimRe = lazyRe(wordsPattern(`tests? (?:now )?pass(?:es|ing|ed)?`, "all tests pass",
		`(?:build|check|lint|type ?check)s? (?:now )?(?:pass(?:es|ed)?|succeed(?:s|ed)?|is green|are green)`,
		"verified", "validated", `testes (?:agora )?passa(?:m|ram|ndo)`,
		`(?:build|check|lint) (?:agora )?(?:passa|passou|passando)`, `verificad[oa]s?`, `validad[oa]s?`))
	allTestsClaimRe = lazyRe(wordsPattern(`all (?:the )?tests (?:now )?pass(?:es|ing|ed)?`,
		`(?:the )?(?:whole|full|entire) (?:test )?suite (?:now )?(?:passes|passed|is green)`,
		`todos os testes (?:agora )?passa(?:m|ram|ndo)`,
		`(?:a )?suíte (?:inteira|completa) (?:agora )?(?:passa|passou|está verde)`))
	acknowledgementRe = lazyRe(wordsPattern(`not (?:yet )?(?:verified|tested|run|validated)`, "untested", "unverified",
		`(?:could not|couldn't|unable to|did not|didn't) (?:run|verify|test|validate)`, "failed", "failing",
		`still fail(?:s|ing)?`, `não (?:foi |foram )?(?:verificad|testad|rodad|executad|validad)[oa]s?`,
		`não (?:consegui|pude) (?:rodar|executar|testar|verificar|validar)`,
		`não (?:verifiquei|testei|rodei|executei|validei)`, "sem verificação", "falhou", "falharam", "ainda falha"))
)

// evidenceLedger tracks what the tool calls of one developer request did.
type evidenceLedger struct {
	step            int
	mutations       int
	opaqueEffects   int // successful execute calls: commands may do work unseen
	lastMutation    int
	changed         []string
	changedSet      map[string]bool
	codeChanged     bool
	checks          []Check
	actionRequested bool
	gates           int
	last            *CompletionReport
}

func (l *evidenceLedger) begin(actionRequested bool) {
	*l = evidenceLedger{lastMutation: -1, actionRequested: actionRequested}
}

func (l *evidenceLedger) record(e Effect, isError bool) {
	step := l.step
	l.step++
	if e.Kind.IsMutation() && !isError {
		l.mutations++
		l.lastMutation = step
		if l.changedSet == nil {
			l.changedSet = map[string]bool{}
		}
		docsOnly := len(e.Paths) > 0
		for _, p := range e.Paths {
			if !l.changedSet[p] {
				l.changedSet[p] = true
				l.changed = append(l.changed, p)
			}
			if !docPathRe().MatchString(p) {
				docsOnly = false
			}
		}
		if !docsOnly {
			l.codeChanged = true
		}
	}
	if e.Kind == EffectExecute && !isError {
		l.opaqueEffects++
	}
	if e.Kind == EffectVerify {
		l.checks = append(l.checks, Check{
			Command:      clip(e.Command, 120),
			Passed:       !isError,
			Step:         step,
			NameFiltered: nameFilterRe().MatchString(e.Command),
		})
	}
}

// pending returns the paths changed since the last passing check, or nil.
func (l *evidenceLedger) pending() []string {
	if l.mutations == 0 || !l.codeChanged {
		return nil
	}
	for i := len(l.checks) - 1; i >= 0; i-- {
		if l.checks[i].Passed {
			if l.checks[i].Step > l.lastMutation {
				return nil
			}
			break
		}
	}
	return append([]string(nil), l.changed...)
}

func (l *evidenceLedger) assess(text string) *CompletionReport {
	claimed := completionClaimRe().MatchString(text) || checkClaimRe().MatchString(text)
	r := &CompletionReport{
		Claimed:      claimed,
		ChangedPaths: append([]string{}, l.changed...),
		Mutations:    l.mutations,
		Checks:       append([]Check{}, l.checks...),
	}
	var lastCheck *Check
	if n := len(l.checks); n > 0 {
		lastCheck = &l.checks[n-1]
	}
	switch {
	case !claimed:
		r.Status = StatusNoClaim
	case acknowledgementRe().MatchString(text):
		r.Status = StatusAcknowledged
	case allTestsClaimRe().MatchString(text) && lastCheck != nil && lastCheck.Passed && lastCheck.NameFiltered:
		r.Status = StatusContradicted
		r.Detail = "the message says all tests pass, but the last check ran only tests matching a name filter: `" + lastCheck.Command + "`"
	case checkClaimRe().MatchString(text) && (lastCheck == nil || !lastCheck.Passed):
		r.Status = StatusContradicted
		if lastCheck != nil {
			r.Detail = "the message says checks pass, but the last check failed: `" + lastCheck.Command + "`"
		} else {
			r.Detail = "the message says checks pass, but no test, type check, build, or lint command ran in this request"
		}
	case l.mutations == 0:
		// Only pure observation shows nothing changed: a command or an
		// unknown tool may have done the work unseen.
		if l.actionRequested && l.opaqueEffects == 0 {
			r.Status = StatusNoEffect
			r.Detail = "the developer requested a change and the message reports it done, but the tool calls only read state"
		} else {
			r.Status = StatusNoClaim
		}
	case l.pending() != nil:
		r.Status = StatusUnverified
		switch {
		case lastCheck == nil:
			r.Detail = "files changed and no test, type check, build, or lint command ran afterwards"
		case lastCheck.Passed:
			r.Detail = "files changed after the last check (`" + lastCheck.Command + "`)"
		default:
			r.Detail = "files changed after the last check (`" + lastCheck.Command + "`, which failed)"
		}
	default:
		r.Status = StatusVerified
	}
	l.last = r
	return r
}

// gate consumes one verification request for a flagged report, if the
// budget allows.
func (l *evidenceLedger) gate(r *CompletionReport) bool {
	if !r.Status.Flagged() || l.gates >= maxGatesPerRequest {
		return false
	}
	l.gates++
	r.Gated = true
	return true
}

// VerificationRequest is the steering message sent for a flagged report.
// With declared commands, it names them instead of the generic checks.
func VerificationRequest(r *CompletionReport, verifyCommands []string) string {
	lines := []string{"[harness:evidence] Completion check: your last message reports the work as finished, but the harness has no evidence for it: " + r.Detail + "."}
	if len(r.ChangedPaths) > 0 {
		shown := r.ChangedPaths
		more := ""
		if len(shown) > 8 {
			shown, more = shown[:8], ", ..."
		}
		lines = append(lines, "Changed in this request: "+strings.Join(shown, ", ")+more+".")
	}
	if len(verifyCommands) > 0 {
		quoted := make([]string, len(verifyCommands))
		for i, c := range verifyCommands {
			quoted[i] = "`" + c + "`"
		}
		lines = append(lines, "Before reporting completion, run the project's declared verification ("+strings.Join(quoted, ", ")+") and report the actual result.")
	} else {
		lines = append(lines, "Before reporting completion, run the project's verification for the changed code (tests, type check, or build) and report the actual result.")
	}
	lines = append(lines, "If verification is not possible, say exactly what was not verified and why. Do not restate success without evidence.")
	return strings.Join(lines, "\n")
}
