package harness

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of the alignment ledgers.
const (
	maxConstraints  = 12
	maxCorrections  = 12
	maxLedgerText   = 240
	minSentenceChar = 8
)

// Constraint is a standing rule the developer stated ("Never use any").
type Constraint struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	// Source is "message" when extracted from a developer message, "api" when
	// added through AddConstraint.
	Source    string `json:"source"`
	Timestamp int64  `json:"timestamp"`
}

// Correction is a developer message that pushed back on the agent's approach.
type Correction struct {
	Text      string `json:"text"`
	Timestamp int64  `json:"timestamp"`
}

var constrainedVerbs = []string{
	"use", "change", "modify", "touch", "edit", "commit", "push", "run", "add", "remove", "delete",
	"create", "install", "rename", "refactor", "call", "write", "break", "import", "update", "upgrade",
	"downgrade", "mock", "skip", "disable",
	"usar?", "altere", "alterar", "mude", "mudar", "mexa", "mexer", "toque", "tocar", "edite", "editar",
	"commite", "commitar", "faça", "fazer", "rode", "rodar", "execute", "executar", "adicione", "adicionar",
	"remova", "remover", "apague", "apagar", "deletar", "crie", "criar", "instale", "instalar", "renomeie",
	"renomear", "refatore", "refatorar", "chame", "chamar", "escreva", "escrever", "quebre", "quebrar",
	"importe", "importar", "atualize", "atualizar", "pule", "pular", "desative", "desativar",
}

var (
	directiveStartRe = lazyRe(`(?i)^(?:please\s+|por favor,?\s+)?(?:never|always|only|avoid|keep|prefer|stick to|nunca|sempre|apenas|somente|jamais|evite|mantenha|prefira)` + wordEnd)
	directiveInnerRe = lazyRe(phrasePattern([]string{
		"do not", "don't", "dont", "never", "must not", "mustn't", "should not", "shouldn't", "only", "always",
		"não", "nao", "nunca", "jamais", "sempre", "apenas", "somente", "só",
	}, constrainedVerbs))
	directivePreferenceRe = lazyRe(`(?i)\buse\s+.{1,60}\s+(?:instead of|rather than|em vez de|ao invés de|no lugar de)` + wordEnd)
	listMarkerRe          = lazyRe(`^\s*(?:[-*+]|\d+[.)])\s+`)
)

// Literal prefilters of the unanchored directive patterns, which are costly
// to run on every sentence of every developer message of a long session
// (Restore without a ledger entry): a sentence can match only if its
// lower-case form holds one of them. Like correctionNeedles, none has an s
// or a k ("alway" for always, "empre" for sempre...).
var (
	directiveLeadNeedles = []string{"not", "n't", "dont", "never", "only", "alway", "não", "nao", "nunca", "jamai",
		"empre", "apena", "omente", "ó"}
	preferenceNeedles = []string{"tead of", "rather than", "em vez de", "ao inv", "no lugar de"}
)

// ExtractConstraints returns the sentences of a developer message that state
// a standing rule. It is conservative: a missed constraint costs nothing new,
// a false one adds a stray reminder line.
func ExtractConstraints(text string) []string {
	var out []string
	for _, s := range sentences(developerProse(text)) {
		if loc := listMarkerRe().FindStringIndex(s); loc != nil { // anchored: one match at most
			s = s[loc[1]:]
		}
		s = strings.TrimSpace(s)
		n := utf8.RuneCountInString(s)
		if n < minSentenceChar || n > maxLedgerText || strings.HasSuffix(s, "?") {
			continue
		}
		if directiveStartRe().MatchString(s) {
			out = append(out, s)
			continue
		}
		lower := strings.ToLower(s)
		if containsAny(lower, directiveLeadNeedles) && directiveInnerRe().MatchString(s) ||
			containsAny(lower, preferenceNeedles) && directivePreferenceRe().MatchString(s) {
			out = append(out, s)
		}
	}
	return out
}

// sentences splits prose on newlines and after ". ! ;" followed by space.
func sentences(prose string) []string {
	var out []string
	for _, line := range strings.Split(prose, "\n") {
		// The next of each terminator, found with IndexByte (a long
		// developer message has few of them: a byte loop cost most of a
		// resume's classification of every developer message).
		next := [3]int{-1, -1, -1}
		start, from := 0, 0
		for {
			i := len(line)
			for k, c := range [3]byte{'.', '!', ';'} {
				if next[k] < from && next[k] != len(line) {
					if j := strings.IndexByte(line[from:], c); j >= 0 {
						next[k] = from + j
					} else {
						next[k] = len(line)
					}
				}
				i = min(i, next[k])
			}
			if i+1 >= len(line) {
				break
			}
			if isSpaceByte(line[i+1]) {
				out = append(out, line[start:i+1])
				start = i + 1
			}
			from = i + 1
		}
		out = append(out, line[start:])
	}
	return out
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// constraintLedger keeps developer constraints as state, outside the
// transcript and compaction.
type constraintLedger struct {
	items  []Constraint
	nextID int
}

// insert records a constraint unless an equal one (case-insensitive) exists.
func (l *constraintLedger) insert(text, source string, ts int64) bool {
	text = clip(text, maxLedgerText)
	if text == "" {
		return false
	}
	key := strings.ToLower(text)
	for _, c := range l.items {
		if strings.ToLower(c.Text) == key {
			return false
		}
	}
	if l.nextID == 0 {
		l.nextID = 1
	}
	l.items = append(l.items, Constraint{ID: "c" + strconv.Itoa(l.nextID), Text: text, Source: source, Timestamp: ts})
	l.nextID++
	if len(l.items) > maxConstraints {
		l.items = append([]Constraint(nil), l.items[len(l.items)-maxConstraints:]...)
	}
	return true
}

func (l *constraintLedger) restore(items []Constraint) {
	if len(items) > maxConstraints {
		items = items[len(items)-maxConstraints:]
	}
	l.items = append([]Constraint(nil), items...)
	l.nextID = 1
	for _, c := range l.items {
		if n, err := strconv.Atoi(strings.TrimPrefix(c.ID, "c")); err == nil && n >= l.nextID {
			l.nextID = n + 1
		}
	}
}

// render restates the constraints for the harness state, or "".
func (l *constraintLedger) render() string {
	if len(l.items) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Developer constraints in force (stated earlier; they still apply):")
	for _, c := range l.items {
		b.WriteString("\n- ")
		b.WriteString(c.Text)
	}
	return b.String()
}

// Intent: questions versus requests.

var (
	// Auxiliaries ("do", "is") are left out: "Do the migration" is an
	// imperative, and a question with an auxiliary still ends with "?".
	interrogativeStartRe = lazyRe(startPattern("why", "how", "what", "where", "which", "who", "when",
		"could you explain", "can you explain", "explain", "por que", "porque", "por quê", "como", "qual",
		"quais", "onde", "quando", "quem", "o que", "existe", "será", "sera", "explique", "me explique"))
	actionRequestRe = lazyRe(wordsPattern("fix", "implement", "add", "change", "update", "refactor", "create",
		"write", "remove", "delete", "rename", "make", "build", "run", "apply", "edit", "move", "replace",
		"upgrade", "install", "migrate", "commit", "push", "improve",
		"corrija", "conserte", "corrigir", "implemente", "implementar", "adicione", "adicionar", "altere",
		"alterar", "mude", "mudar", "atualize", "atualizar", "refatore", "refatorar", "crie", "criar",
		"escreva", "escrever", "remova", "remover", "apague", "apagar", "renomeie", "renomear", "faça",
		"fazer", "aplique", "aplicar", "rode", "rodar", "execute", "executar", "edite", "editar", "mova",
		"mover", "substitua", "substituir", "instale", "instalar", "migre", "migrar", "commite", "commitar",
		"melhore", "melhorar"))
	requestMarkerRe = lazyRe(wordsPattern("can you", "could you", "would you", "please", "let's", "lets",
		"pode", "poderia", "consegue", "por favor", "vamos"))
)

// IsQuestionOnly reports whether a developer message only asks a question.
// "Why does the build fail?" is a question although "build" is an action
// verb: an explanatory opening is a request only with an explicit marker
// ("Why does it fail? Please fix it."). Other questions are requests when
// they contain an action verb ("Can you fix the test?").
func IsQuestionOnly(text string) bool {
	prose := developerProse(text)
	if prose == "" {
		return false
	}
	explanatory := interrogativeStartRe().MatchString(prose)
	if !explanatory && !strings.HasSuffix(prose, "?") {
		return false
	}
	if explanatory && !requestMarkerRe().MatchString(prose) {
		return true
	}
	return !actionRequestRe().MatchString(prose)
}

// RequestsAction reports whether a developer message asks for a change.
func RequestsAction(text string) bool {
	return actionRequestRe().MatchString(developerProse(text))
}

// Corrections.

// PairProgrammingGuidelines are the collaboration rules the system prompt
// carries while alignment is on: the developer owns the what and the why,
// the agent the how.
var PairProgrammingGuidelines = []string{
	"The developer owns the what and the why; you own the how. If the goal or the reason behind a request is unclear, ask before building",
	"Prefer the simplest design that meets the stated requirements; propose a more complex one only by naming the requirement that needs it",
	"Treat context the developer gives about their environment, services, or domain as authoritative over your assumptions, even when it contradicts common practice",
}

const correctionReminder = "The developer's latest message corrects your previous approach. Adopt the correction as stated, prefer the simplest design that satisfies it, and do not reintroduce what they rejected."

var (
	// Words that also open ordinary sentences ("Não sei", "Para o módulo X")
	// count only when punctuation follows: "Não, ...", "Para!".
	correctionStartRe    = lazyRe(`(?i)^(?:(?:no|nope|não|nao|para|pare|espera|wait|stop|hold on)\s*[,.!;:—]|(?:wrong|that's wrong|not that|actually|instead|undo|revert|simplify|errado|errada|não é isso|na verdade|em vez disso|ao invés disso|desfaz|desfaça|volta|simplifica|simplifique)` + wordEnd + `)`)
	correctionAnywhereRe = lazyRe(wordsPattern(`too (?:complex|complicated|much)`, `over-?engineer(?:ed|ing)?`,
		`(?:that's|this is|that is) not what I`, `complicad[oa] demais`, `muito complicad[oa]`,
		`não (?:é|era) (?:isso|o que eu)`, "simplifica", "simplifique"))
)

// correctionNeedles: correctionAnywhereRe can match only a text whose
// lower-case form holds one of them (Restore tests every developer message
// of a long session, and the unanchored regex is the costly part). None has
// an s or k, whose case-insensitive matches (ſ, K) lower-casing misses.
var correctionNeedles = []string{"too", "engineer", "not what", "complicad", "não", "implifi"}

// IsCorrection reports whether a developer message pushes back on the
// agent's previous approach.
func IsCorrection(text string) bool {
	prose := developerProse(text)
	if correctionStartRe().MatchString(prose) {
		return true
	}
	return containsAny(strings.ToLower(prose), correctionNeedles) && correctionAnywhereRe().MatchString(prose)
}

func containsAny(s string, needles []string) bool {
	for _, n := range needles {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}
