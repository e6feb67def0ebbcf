package settings

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/relay-agent/relay/internal/llm"
)

// node describes what one settings key accepts. An object node has fixed
// fields, a map node (elem) accepts any key, a list node validates each
// element, and a leaf checks a scalar or union value.
type node struct {
	fields map[string]*node
	elem   *node
	list   *node
	leaf   func(v any) (expected string, ok bool)
	// strOr accepts a non-empty string, or an object validated by strOr
	// whose required keys are present (packages entries).
	strOr    *node
	required []string
}

func obj(fields map[string]*node) *node { return &node{fields: fields} }
func mapOf(elem *node) *node            { return &node{elem: elem} }
func listOf(elem *node) *node           { return &node{list: elem} }

// maxSafe is Number.MAX_SAFE_INTEGER: settings files are shared with the
// original, whose numbers are doubles.
const maxSafe = 1<<53 - 1

var (
	schemaOnce sync.Once
	schemaRoot *node
)

// agentOnlyKeys may be set only in the agent-directory settings file; a
// project file cannot change them (settings.md, §7.2). deviceId is an
// installation identity a committed project file must not clone.
var agentOnlyKeys = map[string]bool{
	"defaultProjectTrust": true,
	"httpProxy":           true,
	"cacheWarming":        true,
	"deviceId":            true,
}

// resourceKeys are combined across the user and project files instead of
// overridden; each entry resolves against its own file's base directory.
var resourceKeys = []string{"packages", "extensions", "skills", "prompts", "themes"}

// schema returns the settings.md table as a tree, built on first use.
func schema() *node {
	schemaOnce.Do(func() { schemaRoot = buildSchema() })
	return schemaRoot
}

func buildSchema() *node {
	levels := make([]string, len(llm.ThinkingLevels))
	for i, l := range llm.ThinkingLevels {
		levels[i] = string(l)
	}
	nonNeg := intRange(0, maxSafe)
	strs := listOf(str())
	tiers := func() *node {
		return obj(map[string]*node{"fast": strs, "balanced": strs, "strong": strs, "frontier": strs})
	}
	return obj(map[string]*node{
		// Model and thinking.
		"defaultProvider":      str(),
		"defaultModel":         str(),
		"defaultThinkingLevel": enum(levels...),
		"modelThinkingLevels":  mapOf(enum(levels...)),
		"thinkingBudgets": obj(map[string]*node{
			"minimal": nonNeg, "low": nonNeg, "medium": nonNeg, "high": nonNeg,
		}),
		"enabledModels":        strs,
		"hideThinkingBlock":    boolean(),
		"showCacheMissNotices": boolean(),
		"cacheWarming":         enum("off", "streaming", "idle"),

		// Interaction.
		"steeringMode":        enum("all", "one-at-a-time"),
		"followUpMode":        enum("all", "one-at-a-time"),
		"externalEditor":      str(),
		"doubleEscapeAction":  enum("tree", "fork", "none"),
		"treeFilterMode":      enum("default", "no-tools", "user-only", "labeled-only", "all"),
		"defaultProjectTrust": enum("ask", "always", "never"),

		// Tools.
		"defaultTools": strs,
		"codemode": obj(map[string]*node{
			"mode":         enum("on", "only"),
			"inlineBudget": nonNeg,
		}),

		// Sessions and context.
		"sessionDir": str(),
		"compaction": obj(map[string]*node{
			"enabled":          boolean(),
			"reserveTokens":    nonNeg,
			"keepRecentTokens": nonNeg,
			"modelOverrides": mapOf(obj(map[string]*node{
				"reserveTokens":    nonNeg,
				"keepRecentTokens": nonNeg,
			})),
		}),
		"harnessCore": obj(map[string]*node{
			"alignment":         boolean(),
			"authorizationGate": boolean(),
			"scopeGuard":        boolean(),
			"evidence":          boolean(),
			"context":           boolean(),
			"contextKeepRecent": intRange(1, maxSafe),
			"contextBatchSize":  intRange(1, maxSafe),
			"skills":            boolean(),
			"verifyCommands":    strs,
			"maxChangedLines":   nonNeg,
			"maxFileLines":      nonNeg,
		}),
		"laya": obj(map[string]*node{
			"baseUrl":                str(),
			"autostart":              boolean(),
			"python":                 str(),
			"image":                  str(),
			"policy":                 enum("economy", "balanced", "quality", "critical"),
			"models":                 tiers(),
			"modelGroups":            mapOf(tiers()),
			"followProvider":         boolean(),
			"quota":                  mapOf(numRange(0, 1)),
			"minConfidence":          numRange(0, 1),
			"escalateAfterFailures":  nonNeg,
			"toolRouting":            enum("advise", "enforce"),
			"toolRetrieval":          nonNeg,
			"toolRetrievalTelemetry": boolean(),
			"telemetry":              boolean(),
			"memory":                 boolean(),
			"timeoutMs":              nonNeg,
			"classifier":             str(),
		}),
		"branchSummary": obj(map[string]*node{
			"reserveTokens": nonNeg,
			"skipPrompt":    boolean(),
		}),

		// Terminal and display.
		"theme":                      str(),
		"quietStartup":               union(`true, false or "header"`, isBool, isString("header")),
		"tuiMode":                    enum("regular", "fullscreen"),
		"fullscreenExitOutput":       enum("transcript", "resume-hint"),
		"fullscreenScrollbar":        enum("auto", "always", "hidden"),
		"fullscreenCopyOnSelect":     boolean(),
		"fullscreenWheelScrollLines": union(`"auto" or an integer from 1 to 100`, isString("auto"), isInt(1, 100)),
		"editorPaddingX":             intRange(0, 3),
		"outputPad":                  union("0 or 1", isInt(0, 1)),
		"autocompleteMaxVisible":     intRange(3, 20),
		"showHardwareCursor":         boolean(),
		"terminal": obj(map[string]*node{
			"showImages":           boolean(),
			"imageWidthCells":      intRange(1, maxSafe),
			"clearOnShrink":        boolean(),
			"showTerminalProgress": boolean(),
			"hyperlinks":           union(`true, false or "auto"`, isBool, isString("auto")),
			"images":               union(`"kitty", "iterm2", "auto" or false`, isString("kitty"), isString("iterm2"), isString("auto"), isFalse),
			"trueColor":            union(`true, false or "auto"`, isBool, isString("auto")),
		}),
		"images": obj(map[string]*node{
			"autoResize":  boolean(),
			"blockImages": boolean(),
		}),
		"markdown": obj(map[string]*node{
			"codeBlockIndent": str(),
			"mermaid":         enum("off", "final", "streaming"),
		}),

		// Network and retries.
		"transport":                 enum("auto", "sse", "websocket", "websocket-cached"),
		"httpProxy":                 str(),
		"httpIdleTimeoutMs":         nonNeg,
		"websocketConnectTimeoutMs": nonNeg,
		"retry": obj(map[string]*node{
			"enabled":         boolean(),
			"maxRetries":      nonNeg,
			"baseDelayMs":     nonNeg,
			"maxAgentDelayMs": nonNeg,
			"provider": obj(map[string]*node{
				"timeoutMs":       nonNeg,
				"maxRetries":      nonNeg,
				"maxRetryDelayMs": nonNeg,
			}),
		}),

		// Shell.
		"shellPath":          str(),
		"shellCommandPrefix": str(),
		"npmCommand":         listOf(str()),

		// Resources.
		"packages": listOf(&node{required: []string{"source"}, strOr: obj(map[string]*node{
			"source":     str(),
			"autoload":   boolean(),
			"extensions": strs,
			"skills":     strs,
			"prompts":    strs,
			"themes":     strs,
		})}),
		"extensions":          strs,
		"skills":              strs,
		"prompts":             strs,
		"themes":              strs,
		"enableSkillCommands": boolean(),

		// Updates, telemetry and warnings.
		"collapseChangelog":      boolean(),
		"enableInstallTelemetry": boolean(),
		"enableAnalytics":        boolean(),
		"warnings": obj(map[string]*node{
			"anthropicExtraUsage": boolean(),
		}),

		// Bookkeeping relay itself writes to the user file.
		"lastChangelogVersion": str(),
		"trackingId":           str(),
		"deviceId":             str(),
	})
}

// Leaf checkers. Each returns what is allowed and whether v is allowed.

func boolean() *node { return union("true or false", isBool) }
func str() *node     { return union("a string", isString("")) }

func enum(vals ...string) *node {
	quoted := make([]string, len(vals))
	checks := make([]func(any) bool, len(vals))
	for i, v := range vals {
		quoted[i] = strconv.Quote(v)
		checks[i] = isString(v)
	}
	return union("one of "+strings.Join(quoted, ", "), checks...)
}

func intRange(lo, hi int64) *node {
	var want string
	switch {
	case lo == 0 && hi == maxSafe:
		want = "a non-negative safe integer"
	case hi == maxSafe:
		want = fmt.Sprintf("a safe integer of at least %d", lo)
	default:
		want = fmt.Sprintf("an integer from %d to %d", lo, hi)
	}
	return union(want, isInt(lo, hi))
}

func numRange(lo, hi float64) *node {
	want := fmt.Sprintf("a number from %s to %s", strconv.FormatFloat(lo, 'f', -1, 64), strconv.FormatFloat(hi, 'f', -1, 64))
	return union(want, func(v any) bool {
		f, ok := number(v)
		return ok && f >= lo && f <= hi
	})
}

func union(want string, checks ...func(any) bool) *node {
	return &node{leaf: func(v any) (string, bool) {
		for _, c := range checks {
			if c(v) {
				return want, true
			}
		}
		return want, false
	}}
}

func isBool(v any) bool  { _, ok := v.(bool); return ok }
func isFalse(v any) bool { b, ok := v.(bool); return ok && !b }

// isString matches any string when want is "", else exactly want.
func isString(want string) func(any) bool {
	return func(v any) bool {
		s, ok := v.(string)
		return ok && (want == "" || s == want)
	}
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

func isInt(lo, hi int64) func(any) bool {
	return func(v any) bool {
		f, ok := number(v)
		if !ok || f != math.Trunc(f) || math.Abs(f) > maxSafe {
			return false
		}
		return int64(f) >= lo && int64(f) <= hi
	}
}

// describe renders a rejected value for a diagnostic, shortened.
func describe(v any) string {
	var s string
	switch x := v.(type) {
	case *Object:
		s = "an object"
	case []any:
		s = "an array"
	case nil:
		s = "null"
	case string:
		s = strconv.Quote(x)
	case json.Number:
		s = string(x)
	case bool:
		s = strconv.FormatBool(x)
	default:
		s = fmt.Sprint(x)
	}
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
