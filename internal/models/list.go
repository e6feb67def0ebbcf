package models

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// FormatList writes the `relay --list-models [search]` table: provider,
// model, context, max out, thinking, images; sorted by provider then id,
// filtered by a fuzzy search over "provider id" when search is set.
func FormatList(w io.Writer, models []*llm.Model, search string) error {
	if len(models) == 0 {
		_, err := fmt.Fprintln(w, "No models available. Set an API key (run /login or export the provider's environment variable, e.g. ANTHROPIC_API_KEY) or add models to models.json (relay help models, docs/providers.md).")
		return err
	}
	list := append([]*llm.Model(nil), models...)
	if q := strings.TrimSpace(search); q != "" {
		list = FilterModels(list, q)
		if len(list) == 0 {
			_, err := fmt.Fprintf(w, "No models matching %q\n", q)
			return err
		}
	}
	// localeCompare-like: case-insensitive first.
	less := func(a, b string) int {
		if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	}
	sort.SliceStable(list, func(i, j int) bool {
		if c := less(list[i].Provider, list[j].Provider); c != 0 {
			return c < 0
		}
		return less(list[i].ID, list[j].ID) < 0
	})
	rows := [][]string{{"provider", "model", "context", "max-out", "thinking", "images"}}
	for _, m := range list {
		rows = append(rows, []string{
			m.Provider, m.ID, FormatTokens(m.ContextWindow), FormatTokens(m.MaxTokens),
			yesNo(m.Reasoning), yesNo(m.SupportsImages()),
		})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		// Every column is padded, the last one too, as the original.
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", widths[i]-len(c)))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// FormatTokens renders a token count as the original does: whole
// thousands/millions without decimals (200K, 1M), others with one
// (65.5K, 1.0M for 1048576).
func FormatTokens(n int) string {
	switch {
	case n >= 1_000_000:
		return scaled(n, 1_000_000) + "M"
	case n >= 1000:
		return scaled(n, 1000) + "K"
	default:
		return strconv.Itoa(n)
	}
}

func scaled(n, unit int) string {
	if n%unit == 0 {
		return strconv.Itoa(n / unit)
	}
	return strconv.FormatFloat(float64(n)/float64(unit), 'f', 1, 64)
}

// FilterModels keeps the models matching a fuzzy query: every
// whitespace-separated term must appear, in order, as a subsequence of
// "provider id" (case-insensitive). Better matches come first.
func FilterModels(models []*llm.Model, query string) []*llm.Model {
	terms := strings.Fields(strings.ToLower(query))
	type hit struct {
		m     *llm.Model
		score int
	}
	var hits []hit
	for _, m := range models {
		hay := strings.ToLower(m.Provider + " " + m.ID)
		total, ok := 0, true
		for _, t := range terms {
			s, found := fuzzyScore(t, hay)
			if !found {
				ok = false
				break
			}
			total += s
		}
		if ok {
			hits = append(hits, hit{m, total})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score < hits[j].score })
	out := make([]*llm.Model, len(hits))
	for i, h := range hits {
		out[i] = h.m
	}
	return out
}

// fuzzyScore reports whether term is a subsequence of s; lower scores are
// tighter matches (a substring scores 0, gaps add their length).
func fuzzyScore(term, s string) (int, bool) {
	if strings.Contains(s, term) {
		return 0, true
	}
	score, pos, last := 0, 0, -1
	for _, c := range term {
		i := strings.IndexRune(s[pos:], c)
		if i < 0 {
			return 0, false
		}
		if last >= 0 {
			score += pos + i - last - 1
		}
		last = pos + i
		pos += i + len(string(c))
	}
	return score + 1, true
}
