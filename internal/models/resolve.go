package models

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// Resolution is the outcome of resolving a --model pattern.
type Resolution struct {
	Model *llm.Model
	// Thinking is the level from a ":<thinking>" suffix, "" when none.
	Thinking llm.ThinkingLevel
	// Warning is set when the model was accepted with a caveat (e.g. an
	// unknown id used as a custom id of a known provider).
	Warning string
}

// Resolve finds the model for --model pattern, optionally restricted to
// --provider (§1.4): exact id or provider/id, then a case-insensitive
// substring of id or name (aliases preferred over dated ids), with an
// optional ":<thinking>" suffix. Unknown ids of a known provider are
// accepted as custom ids (see ResolveModel for the warning).
func (r *Registry) Resolve(pattern, provider string) (*llm.Model, llm.ThinkingLevel, error) {
	res, err := r.ResolveModel(pattern, provider, "")
	return res.Model, res.Thinking, err
}

// ResolveModel is Resolve with the warning; cliThinking is the --thinking
// flag (it suppresses parsing a suffix for custom ids, as the original).
func (r *Registry) ResolveModel(pattern, provider string, cliThinking llm.ThinkingLevel) (Resolution, error) {
	if r.LlamaEnabled() && namesLlama(pattern, provider) {
		// Discovered models are known only once the server answered.
		if err := r.llamaResolveError(pattern, r.WaitLlama(context.Background())); err != nil {
			return Resolution{}, err
		}
	}
	all := r.All()
	if pattern == "" {
		return Resolution{}, fmt.Errorf("no model pattern given")
	}
	if len(all) == 0 {
		return Resolution{}, fmt.Errorf("No models available. Check your installation or add models to models.json.")
	}
	providers := map[string]string{}
	for _, m := range all {
		providers[strings.ToLower(m.Provider)] = m.Provider
	}
	prov := ""
	if provider != "" {
		prov = providers[strings.ToLower(provider)]
		if prov == "" {
			return Resolution{}, fmt.Errorf("Unknown provider %q. Use --list-models to see available providers/models.", provider)
		}
	}

	// A bare id or fuzzy pattern never lands on a model the account has
	// not made known (see accountCatalogs); provider/id still finds it.
	loose := r.withoutUnknownAccounts(all)

	pat, inferred := pattern, false
	if prov == "" {
		if i := strings.IndexByte(pattern, '/'); i >= 0 {
			if canon := providers[strings.ToLower(pattern[:i])]; canon != "" {
				prov, pat, inferred = canon, pattern[i+1:], true
			}
		}
	}
	if prov == "" {
		lower := strings.ToLower(pattern)
		var exact []*llm.Model
		for _, m := range loose {
			if strings.ToLower(m.ID) == lower || strings.ToLower(m.Provider+"/"+m.ID) == lower {
				exact = append(exact, m)
			}
		}
		if len(exact) == 1 {
			return Resolution{Model: exact[0]}, nil
		}
		if len(exact) > 1 {
			var authed []*llm.Model
			for _, m := range exact {
				if r.HasAuth(m.Provider) {
					authed = append(authed, m)
				}
			}
			if len(authed) == 1 {
				return Resolution{Model: authed[0]}, nil
			}
			refs := make([]string, len(exact))
			for i, m := range exact {
				refs[i] = m.Provider + "/" + m.ID
			}
			sort.Strings(refs)
			hint := "No matching provider is authenticated."
			if len(authed) > 1 {
				hint = "More than one matching provider is authenticated."
			}
			return Resolution{}, fmt.Errorf("Model %q is ambiguous across providers: %s. %s Use --provider or provider/model.", pattern, strings.Join(refs, ", "), hint)
		}
	}
	if provider != "" && prov != "" {
		if p := prov + "/"; strings.HasPrefix(strings.ToLower(pattern), strings.ToLower(p)) {
			pat = pattern[len(p):]
		}
	}

	candidates := loose
	if prov != "" {
		candidates = filterProvider(all, prov)
	}
	if m, lvl, ok := parsePattern(pat, candidates, false); ok {
		if inferred && !r.HasAuth(m.Provider) {
			// "xiaomi/mimo" may be a literal id on another, authenticated
			// provider rather than provider/id.
			var authed []*llm.Model
			for _, o := range all {
				if strings.EqualFold(o.ID, pattern) && o != m && r.HasAuth(o.Provider) {
					authed = append(authed, o)
				}
			}
			if len(authed) == 1 {
				return Resolution{Model: authed[0]}, nil
			}
		}
		return Resolution{Model: m, Thinking: lvl}, nil
	}
	if inferred {
		lower := strings.ToLower(pattern)
		for _, m := range all {
			if strings.ToLower(m.ID) == lower || strings.ToLower(m.Provider+"/"+m.ID) == lower {
				return Resolution{Model: m}, nil
			}
		}
		if m, lvl, ok := parsePattern(pattern, loose, false); ok {
			return Resolution{Model: m, Thinking: lvl}, nil
		}
	}
	if prov != "" {
		id, lvl := pat, llm.ThinkingLevel("")
		if cliThinking == "" {
			if i := strings.LastIndexByte(pat, ':'); i >= 0 {
				if l, ok := llm.ParseThinkingLevel(pat[i+1:]); ok {
					id, lvl = pat[:i], l
				}
			}
		}
		if m := customIDModel(prov, id, all); m != nil {
			want := cliThinking
			if want == "" {
				want = lvl
			}
			if want != "" && want != llm.ThinkingOff {
				m.Reasoning = true
			}
			return Resolution{Model: m, Thinking: lvl,
				Warning: fmt.Sprintf("Model %q not found for provider %q. Using custom model id.", id, prov)}, nil
		}
	}
	display := pattern
	if prov != "" {
		display = prov + "/" + pat
	}
	return Resolution{}, notFound(display, pat, candidates)
}

// accountCatalogs are the providers whose models the original learns from
// the signed-in account (Antigravity's fetchAvailableModels): relay ships
// their rows, but until there is a sign-in they take no part in bare-id
// and fuzzy resolution, where their ids ("claude-sonnet-4-5-thinking",
// "gemini-3-flash") would shadow the providers people have keys for.
var accountCatalogs = map[string]bool{"google-antigravity": true}

// withoutUnknownAccounts returns all without the models of account
// catalogs that have no credentials.
func (r *Registry) withoutUnknownAccounts(all []*llm.Model) []*llm.Model {
	skip := map[string]bool{}
	for p := range accountCatalogs {
		if !r.HasAuth(p) {
			skip[p] = true
		}
	}
	if len(skip) == 0 {
		return all
	}
	out := make([]*llm.Model, 0, len(all))
	for _, m := range all {
		if !skip[m.Provider] {
			out = append(out, m)
		}
	}
	return out
}

func filterProvider(all []*llm.Model, provider string) []*llm.Model {
	var out []*llm.Model
	for _, m := range all {
		if m.Provider == provider {
			out = append(out, m)
		}
	}
	return out
}

// customIDModel copies the provider's preferred model under a new id, so
// an id the catalog does not know yet can still be used.
func customIDModel(provider, id string, all []*llm.Model) *llm.Model {
	models := filterProvider(all, provider)
	if len(models) == 0 || id == "" {
		return nil
	}
	base := models[0]
	if def := DefaultModelID(provider); def != "" {
		for _, m := range models {
			if m.ID == def {
				base = m
			}
		}
	}
	m := cloneModel(base)
	m.ID, m.Name = id, id
	return m
}

// parsePattern matches pattern, then retries with a trailing ":<suffix>"
// removed; a valid thinking level suffix is returned. With lenient, an
// invalid suffix is dropped (scope mode); otherwise it stays part of the id.
func parsePattern(pattern string, models []*llm.Model, lenient bool) (*llm.Model, llm.ThinkingLevel, bool) {
	if m := matchModel(pattern, models); m != nil {
		return m, "", true
	}
	i := strings.LastIndexByte(pattern, ':')
	if i < 0 {
		return nil, "", false
	}
	prefix, suffix := pattern[:i], pattern[i+1:]
	if lvl, ok := llm.ParseThinkingLevel(suffix); ok {
		m, _, found := parsePattern(prefix, models, lenient)
		return m, lvl, found
	}
	if !lenient {
		return nil, "", false
	}
	m, _, found := parsePattern(prefix, models, lenient)
	return m, "", found
}

// exactMatch finds a model by provider/id or bare id (case-insensitive);
// ambiguous bare ids match nothing.
func exactMatch(ref string, models []*llm.Model) *llm.Model {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil
	}
	lower := strings.ToLower(ref)
	var canon []*llm.Model
	for _, m := range models {
		if strings.ToLower(m.Provider+"/"+m.ID) == lower {
			canon = append(canon, m)
		}
	}
	if len(canon) == 1 {
		return canon[0]
	}
	if len(canon) > 1 {
		return nil
	}
	var ids []*llm.Model
	for _, m := range models {
		if strings.ToLower(m.ID) == lower {
			ids = append(ids, m)
		}
	}
	if len(ids) == 1 {
		return ids[0]
	}
	return nil
}

// isAlias reports whether id is not a dated snapshot (-YYYYMMDD suffix).
func isAlias(id string) bool {
	if strings.HasSuffix(id, "-latest") {
		return true
	}
	if len(id) < 9 || id[len(id)-9] != '-' {
		return true
	}
	for _, c := range id[len(id)-8:] {
		if c < '0' || c > '9' {
			return true
		}
	}
	return false
}

// matchModel is the exact match, else the best substring match of id or
// name: aliases before dated ids, the highest-sorting id first.
func matchModel(pattern string, models []*llm.Model) *llm.Model {
	if m := exactMatch(pattern, models); m != nil {
		return m
	}
	p := strings.ToLower(pattern)
	if p == "" {
		return nil
	}
	var aliases, dated []*llm.Model
	for _, m := range models {
		if strings.Contains(strings.ToLower(m.ID), p) || strings.Contains(strings.ToLower(m.Name), p) {
			if isAlias(m.ID) {
				aliases = append(aliases, m)
			} else {
				dated = append(dated, m)
			}
		}
	}
	pick := aliases
	if len(pick) == 0 {
		pick = dated
	}
	if len(pick) == 0 {
		return nil
	}
	best := pick[0]
	for _, m := range pick[1:] {
		if m.ID > best.ID {
			best = m
		}
	}
	return best
}

// ScopedModel is one entry of a --models / enabledModels scope.
type ScopedModel struct {
	Model *llm.Model
	// Thinking is the level from a ":<thinking>" suffix, "" when none.
	Thinking llm.ThinkingLevel
}

// Scope resolves --models / enabledModels patterns against the available
// models (those with credentials). Each pattern is an exact reference, a
// fuzzy pattern or a case-insensitive glob (*, ?, [...]) over provider/id
// or id, optionally with ":<thinking>". Warnings name patterns that
// matched nothing or carried an invalid level.
func (r *Registry) Scope(ctx context.Context, patterns []string) ([]ScopedModel, []string) {
	return ScopeModels(patterns, r.Available(ctx))
}

// ScopeModels is Scope over an explicit model list.
func ScopeModels(patterns []string, models []*llm.Model) ([]ScopedModel, []string) {
	var out []ScopedModel
	var warnings []string
	seen := map[*llm.Model]bool{}
	add := func(m *llm.Model, lvl llm.ThinkingLevel) {
		if !seen[m] {
			seen[m] = true
			out = append(out, ScopedModel{Model: m, Thinking: lvl})
		}
	}
	for _, pattern := range patterns {
		pattern = strings.TrimSpace(pattern)
		if pattern == "" {
			continue
		}
		if strings.ContainsAny(pattern, "*?[") {
			glob, lvl := pattern, llm.ThinkingLevel("")
			if i := strings.LastIndexByte(pattern, ':'); i >= 0 {
				if l, ok := llm.ParseThinkingLevel(pattern[i+1:]); ok {
					glob, lvl = pattern[:i], l
				}
			}
			if m := exactMatch(glob, models); m != nil {
				add(m, lvl)
				continue
			}
			g := strings.ToLower(glob)
			matched := false
			for _, m := range models {
				if globMatch(g, strings.ToLower(m.Provider+"/"+m.ID)) || globMatch(g, strings.ToLower(m.ID)) {
					add(m, lvl)
					matched = true
				}
			}
			if !matched {
				warnings = append(warnings, fmt.Sprintf("No models match pattern %q", pattern))
			}
			continue
		}
		m, lvl, ok := parsePattern(pattern, models, true)
		if ok {
			// An invalid suffix was dropped: say so, as the original does.
			if i := strings.LastIndexByte(pattern, ':'); i >= 0 && lvl == "" && matchModel(pattern, models) == nil {
				warnings = append(warnings, fmt.Sprintf("Invalid thinking level %q in pattern %q. Using default instead.", pattern[i+1:], pattern))
			}
			add(m, lvl)
			continue
		}
		warnings = append(warnings, fmt.Sprintf("No models match pattern %q", pattern))
	}
	return out, warnings
}

// globMatch is path.Match where a malformed pattern matches nothing.
func globMatch(pattern, s string) bool {
	ok, err := path.Match(pattern, s)
	return err == nil && ok
}

// notFound builds the "Model not found" error with up to three close
// matches (by edit distance over id and provider/id).
func notFound(display, pat string, candidates []*llm.Model) error {
	type scored struct {
		ref  string
		dist int
	}
	p := strings.ToLower(pat)
	if i := strings.LastIndexByte(p, ':'); i >= 0 {
		if _, ok := llm.ParseThinkingLevel(p[i+1:]); ok {
			p = p[:i]
		}
	}
	limit := max(3, len(p)/2)
	var close []scored
	for _, m := range candidates {
		d := min(levenshtein(p, strings.ToLower(m.ID)), levenshtein(p, strings.ToLower(m.Provider+"/"+m.ID)))
		if d <= limit {
			close = append(close, scored{m.Provider + "/" + m.ID, d})
		}
	}
	sort.SliceStable(close, func(i, j int) bool {
		if close[i].dist != close[j].dist {
			return close[i].dist < close[j].dist
		}
		return close[i].ref < close[j].ref
	})
	msg := fmt.Sprintf("Model %q not found.", display)
	if len(close) > 0 {
		refs := make([]string, 0, 3)
		for i := 0; i < len(close) && i < 3; i++ {
			refs = append(refs, close[i].ref)
		}
		msg += " Did you mean: " + strings.Join(refs, ", ") + "?"
	}
	return fmt.Errorf("%s Use --list-models to see available models.", msg)
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
