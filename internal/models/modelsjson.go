package models

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/llm"
)

// Problem is one models.json error: where (a JSON path such as
// providers.ollama.models[2].contextWindow) and what was expected.
type Problem struct {
	Path    string
	Message string
}

// ConfigError reports why models.json was not applied. The built-in
// catalog stays usable when it happens.
type ConfigError struct {
	File     string
	Parse    string // syntax error text, when the file is not JSON
	Read     error  // I/O error
	Problems []Problem
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	switch {
	case e.Read != nil:
		fmt.Fprintf(&b, "Failed to load models.json: %v", e.Read)
	case e.Parse != "":
		fmt.Fprintf(&b, "Failed to parse models.json: %s", e.Parse)
	default:
		b.WriteString("Invalid models.json schema:")
		for _, p := range e.Problems {
			fmt.Fprintf(&b, "\n  - %s: %s", p.Path, p.Message)
		}
	}
	fmt.Fprintf(&b, "\n\nFile: %s", e.File)
	return b.String()
}

// customProvider is one validated providers.<id> entry of models.json.
type customProvider struct {
	id         string
	path       string
	name       string
	baseURL    string
	apiKey     string
	api        string
	headers    map[string]string
	compat     json.RawMessage
	authHeader bool
	models     []modelDef
	overrides  []modelOverride
}

// modelDef is a models[] entry: a full model plus which fields were set.
type modelDef struct {
	path  string
	model llm.Model
	set   map[string]bool
	// compat as written, merged over the provider's.
	compat json.RawMessage
}

// modelOverride is a modelOverrides.<id> entry.
type modelOverride struct {
	id     string
	fields modelDef
	cost   map[string]float64 // individually optional cost rates
}

// modelsConfig is a validated models.json.
type modelsConfig struct {
	providers []*customProvider
}

// readModelsJSON loads path. A missing file is no configuration.
func readModelsJSON(path string) (*modelsConfig, *ConfigError) {
	data, err := fsx.ReadFile(path, config.MaxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return &modelsConfig{}, nil
	}
	if err != nil {
		return nil, &ConfigError{File: path, Read: err}
	}
	return parseModelsJSON(path, data)
}

func parseModelsJSON(path string, data []byte) (*modelsConfig, *ConfigError) {
	clean := stripJSONC(data)
	root, err := decodeOrdered(clean)
	if err != nil {
		return nil, &ConfigError{File: path, Parse: describeSyntaxError(clean, err)}
	}
	v := &validator{}
	cfg := v.root(root)
	if len(v.problems) > 0 {
		return nil, &ConfigError{File: path, Problems: v.problems}
	}
	return cfg, nil
}

type validator struct {
	problems []Problem
	// ext validates an extension's registerProvider configuration, which
	// may carry only a name, api or oauth.
	ext bool
}

func (v *validator) fail(path, format string, a ...any) {
	v.problems = append(v.problems, Problem{Path: path, Message: fmt.Sprintf(format, a...)})
}

// plainKey reports whether key can be written as .key in a path.
func plainKey(key string) bool {
	if key == "" {
		return false
	}
	for _, c := range key {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func member(path, key string) string {
	if plainKey(key) {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

func kind(x any) string {
	switch t := x.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		return "number"
	case []any:
		return "array"
	case *object:
		return "object"
	default:
		return fmt.Sprintf("%T", t)
	}
}

func (v *validator) obj(path string, x any) *object {
	o, ok := x.(*object)
	if !ok {
		v.fail(path, "expected an object, got %s", kind(x))
		return nil
	}
	return o
}

func (v *validator) str(path string, x any, nonEmpty bool) (string, bool) {
	s, ok := x.(string)
	if !ok {
		v.fail(path, "expected a string, got %s", kind(x))
		return "", false
	}
	if nonEmpty && s == "" {
		v.fail(path, "expected a non-empty string")
		return "", false
	}
	return s, true
}

func (v *validator) boolean(path string, x any) (bool, bool) {
	b, ok := x.(bool)
	if !ok {
		v.fail(path, "expected true or false, got %s", kind(x))
	}
	return b, ok
}

func (v *validator) number(path string, x any) (float64, bool) {
	n, ok := x.(json.Number)
	if !ok {
		v.fail(path, "expected a number, got %s", kind(x))
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) {
		v.fail(path, "expected a finite number, got %s", n)
		return 0, false
	}
	return f, true
}

func (v *validator) positive(path string, x any) (float64, bool) {
	f, ok := v.number(path, x)
	if ok && f <= 0 {
		v.fail(path, "expected a positive number, got %s", x)
		return 0, false
	}
	return f, ok
}

func (v *validator) positiveInt(path string, x any) (int, bool) {
	f, ok := v.positive(path, x)
	if !ok {
		return 0, false
	}
	if f != math.Trunc(f) || f > math.MaxInt32*64 {
		v.fail(path, "expected a whole number, got %s", x)
		return 0, false
	}
	return int(f), true
}

func (v *validator) rate(path string, x any) (float64, bool) {
	f, ok := v.number(path, x)
	if ok && f < 0 {
		v.fail(path, "expected a cost of 0 or more (USD per million tokens), got %s", x)
		return 0, false
	}
	return f, ok
}

func (v *validator) stringMap(path string, x any) map[string]string {
	o := v.obj(path, x)
	if o == nil {
		return nil
	}
	m := make(map[string]string, len(o.keys))
	for _, k := range o.keys {
		if s, ok := v.str(member(path, k), o.vals[k], false); ok {
			m[k] = s
		}
	}
	return m
}

func (v *validator) root(x any) *modelsConfig {
	o := v.obj("root", x)
	if o == nil {
		return nil
	}
	pv, ok := o.get("providers")
	if !ok {
		v.fail("providers", "required (an object keyed by provider id)")
		return nil
	}
	po := v.obj("providers", pv)
	if po == nil {
		return nil
	}
	cfg := &modelsConfig{}
	for _, id := range po.keys {
		if p := v.provider(member("providers", id), id, po.vals[id]); p != nil {
			cfg.providers = append(cfg.providers, p)
		}
	}
	return cfg
}

var providerKeys = []string{"baseUrl", "headers", "compat", "modelOverrides", "models", "apiKey", "authHeader"}

func (v *validator) provider(path, id string, x any) *customProvider {
	o := v.obj(path, x)
	if o == nil {
		return nil
	}
	p := &customProvider{id: id, path: path}
	hasKey := false
	for _, k := range providerKeys {
		if _, ok := o.get(k); ok {
			hasKey = true
		}
	}
	if !hasKey && !v.ext {
		v.fail(path, "expected at least one of %s", strings.Join(providerKeys, ", "))
	}
	for _, k := range o.keys {
		val, kp := o.vals[k], member(path, k)
		switch k {
		case "name":
			p.name, _ = v.str(kp, val, true)
		case "baseUrl":
			p.baseURL, _ = v.str(kp, val, true)
		case "apiKey":
			p.apiKey, _ = v.str(kp, val, true)
		case "api":
			p.api, _ = v.str(kp, val, true)
		case "headers":
			p.headers = v.stringMap(kp, val)
		case "compat":
			p.compat = v.compat(kp, val)
		case "authHeader":
			p.authHeader, _ = v.boolean(kp, val)
		case "models":
			arr, ok := val.([]any)
			if !ok {
				v.fail(kp, "expected an array of models, got %s", kind(val))
				continue
			}
			for i, mx := range arr {
				if md, ok := v.modelDef(index(kp, i), mx, false); ok {
					p.models = append(p.models, md)
				}
			}
		case "modelOverrides":
			mo := v.obj(kp, val)
			if mo == nil {
				continue
			}
			for _, mid := range mo.keys {
				if ov, ok := v.override(member(kp, mid), mid, mo.vals[mid]); ok {
					p.overrides = append(p.overrides, ov)
				}
			}
		}
	}
	return p
}

// modelDef validates a models[] entry (or, with override, a
// modelOverrides entry, which has no id/api/baseUrl and optional cost
// rates).
func (v *validator) modelDef(path string, x any, override bool) (modelDef, bool) {
	o := v.obj(path, x)
	if o == nil {
		return modelDef{}, false
	}
	before := len(v.problems)
	md := modelDef{path: path, set: map[string]bool{}}
	m := &md.model
	if !override {
		if idv, ok := o.get("id"); !ok {
			v.fail(member(path, "id"), "required (the model id sent to the provider)")
		} else {
			m.ID, _ = v.str(member(path, "id"), idv, true)
		}
	}
	for _, k := range o.keys {
		val, kp := o.vals[k], member(path, k)
		md.set[k] = true
		switch k {
		case "name":
			m.Name, _ = v.str(kp, val, true)
		case "api", "baseUrl":
			if override {
				v.fail(kp, "not allowed in modelOverrides (define the model under models instead)")
				continue
			}
			s, _ := v.str(kp, val, true)
			if k == "api" {
				m.API = s
			} else {
				m.BaseURL = s
			}
		case "reasoning":
			m.Reasoning, _ = v.boolean(kp, val)
		case "thinkingLevelMap":
			m.ThinkingLevelMap = v.thinkingMap(kp, val)
		case "input":
			m.Input = v.inputKinds(kp, val)
		case "inputLimits":
			m.InputLimits = v.inputLimits(kp, val)
		case "cost":
			if !override {
				m.Cost = v.cost(kp, val)
			}
		case "promptCache":
			m.PromptCache = v.promptCache(kp, val)
		case "contextWindow":
			m.ContextWindow, _ = v.positiveInt(kp, val)
		case "maxTokens":
			m.MaxTokens, _ = v.positiveInt(kp, val)
		case "samplingParams":
			if so := v.obj(kp, val); so != nil {
				m.SamplingParams = toPlain(so).(map[string]any)
			}
		case "samplingParamsByThinkingLevel":
			m.SamplingParamsByThinkingLevel = v.samplingByLevel(kp, val)
		case "headers":
			m.Headers = v.stringMap(kp, val)
		case "compat":
			md.compat = v.compat(kp, val)
		}
	}
	return md, len(v.problems) == before
}

func (v *validator) override(path, id string, x any) (modelOverride, bool) {
	before := len(v.problems)
	md, _ := v.modelDef(path, x, true)
	ov := modelOverride{id: id, fields: md}
	if md.set["cost"] {
		o := x.(*object)
		cv, _ := o.get("cost")
		cp := member(path, "cost")
		if co := v.obj(cp, cv); co != nil {
			ov.cost = map[string]float64{}
			for _, k := range co.keys {
				kp := member(cp, k)
				switch k {
				case "input", "output", "cacheRead", "cacheWrite":
					if f, ok := v.rate(kp, co.vals[k]); ok {
						ov.cost[k] = f
					}
				case "tiers":
					ov.fields.model.Cost.Tiers = v.tiers(kp, co.vals[k])
					ov.fields.set["cost.tiers"] = true
				}
			}
		}
	}
	return ov, len(v.problems) == before
}

func (v *validator) cost(path string, x any) llm.ModelCost {
	var c llm.ModelCost
	o := v.obj(path, x)
	if o == nil {
		return c
	}
	rates := map[string]*float64{"input": &c.Input, "output": &c.Output, "cacheRead": &c.CacheRead, "cacheWrite": &c.CacheWrite}
	for _, k := range []string{"input", "output", "cacheRead", "cacheWrite"} {
		val, ok := o.get(k)
		if !ok {
			v.fail(member(path, k), "required (USD per million tokens; use 0 when free)")
			continue
		}
		*rates[k], _ = v.rate(member(path, k), val)
	}
	if tv, ok := o.get("tiers"); ok {
		c.Tiers = v.tiers(member(path, "tiers"), tv)
	}
	return c
}

func (v *validator) tiers(path string, x any) []llm.CostTier {
	arr, ok := x.([]any)
	if !ok {
		v.fail(path, "expected an array of tiers, got %s", kind(x))
		return nil
	}
	var out []llm.CostTier
	for i, tx := range arr {
		tp := index(path, i)
		o := v.obj(tp, tx)
		if o == nil {
			continue
		}
		var t llm.CostTier
		fields := map[string]*float64{"input": &t.Input, "output": &t.Output, "cacheRead": &t.CacheRead, "cacheWrite": &t.CacheWrite}
		if av, ok := o.get("inputTokensAbove"); !ok {
			v.fail(member(tp, "inputTokensAbove"), "required (prompt size in tokens above which this tier applies)")
		} else if f, ok := v.number(member(tp, "inputTokensAbove"), av); ok {
			t.InputTokensAbove = int(f)
		}
		for _, k := range []string{"input", "output", "cacheRead", "cacheWrite"} {
			val, ok := o.get(k)
			if !ok {
				v.fail(member(tp, k), "required (USD per million tokens)")
				continue
			}
			*fields[k], _ = v.rate(member(tp, k), val)
		}
		out = append(out, t)
	}
	return out
}

func (v *validator) thinkingMap(path string, x any) map[string]*string {
	o := v.obj(path, x)
	if o == nil {
		return nil
	}
	m := map[string]*string{}
	for _, k := range o.keys {
		if _, known := llm.ParseThinkingLevel(k); !known {
			continue // the original ignores members it does not model
		}
		switch t := o.vals[k].(type) {
		case nil:
			m[k] = nil
		case string:
			s := t
			m[k] = &s
		default:
			v.fail(member(path, k), "expected a string or null, got %s", kind(t))
		}
	}
	return m
}

func (v *validator) inputKinds(path string, x any) []string {
	arr, ok := x.([]any)
	if !ok {
		v.fail(path, "expected an array of \"text\" and \"image\", got %s", kind(x))
		return nil
	}
	out := []string{}
	for i, e := range arr {
		s, ok := e.(string)
		if !ok || (s != "text" && s != "image") {
			v.fail(index(path, i), "expected \"text\" or \"image\", got %s", describe(e))
			continue
		}
		out = append(out, s)
	}
	return out
}

func describe(x any) string {
	if s, ok := x.(string); ok {
		return strconv.Quote(s)
	}
	if n, ok := x.(json.Number); ok {
		return n.String()
	}
	return kind(x)
}

func (v *validator) promptCache(path string, x any) *llm.PromptCache {
	o := v.obj(path, x)
	if o == nil {
		return nil
	}
	pc := &llm.PromptCache{}
	for _, k := range o.keys {
		kp := member(path, k)
		switch k {
		case "short":
			if f, ok := v.positive(kp, o.vals[k]); ok {
				pc.Short = int(math.Ceil(f))
			}
		case "long":
			if f, ok := v.positive(kp, o.vals[k]); ok {
				pc.Long = int(math.Ceil(f))
			}
		}
	}
	return pc
}

func (v *validator) inputLimits(path string, x any) json.RawMessage {
	o := v.obj(path, x)
	if o == nil {
		return nil
	}
	for _, k := range o.keys {
		kp := member(path, k)
		switch k {
		case "maxRequestBytes":
			v.positiveInt(kp, o.vals[k])
		case "images":
			io := v.obj(kp, o.vals[k])
			if io == nil {
				continue
			}
			for _, ik := range io.keys {
				ikp := member(kp, ik)
				switch ik {
				case "maxPerMessage", "maxPerRequest":
					v.positiveInt(ikp, io.vals[ik])
				case "resize":
					ro := v.obj(ikp, io.vals[ik])
					if ro == nil {
						continue
					}
					for _, rk := range ro.keys {
						rkp := member(ikp, rk)
						switch rk {
						case "maxWidth", "maxHeight", "maxBytes":
							v.positiveInt(rkp, ro.vals[rk])
						case "jpegQuality":
							if n, ok := v.positiveInt(rkp, ro.vals[rk]); ok && n > 100 {
								v.fail(rkp, "expected a whole number from 1 to 100, got %d", n)
							}
						}
					}
				}
			}
		}
	}
	b, _ := llm.Marshal(toPlain(o))
	return b
}

func (v *validator) samplingByLevel(path string, x any) map[string]map[string]any {
	o := v.obj(path, x)
	if o == nil {
		return nil
	}
	out := map[string]map[string]any{}
	for _, k := range o.keys {
		if _, known := llm.ParseThinkingLevel(k); !known {
			continue
		}
		if lo := v.obj(member(path, k), o.vals[k]); lo != nil {
			out[k] = toPlain(lo).(map[string]any)
		}
	}
	return out
}

// Compat members with a fixed type (the union of the original's
// openai-completions, openai-responses and anthropic-messages compat
// schemas). Members not listed are kept as written.
var (
	compatBools = map[string]bool{
		"supportsStore": true, "supportsDeveloperRole": true, "supportsReasoningEffort": true,
		"supportsUsageInStreaming": true, "supportsFinishReason": true, "requiresToolResultName": true,
		"requiresAssistantAfterToolResult": true, "requiresThinkingAsText": true,
		"requiresReasoningContentOnAssistantMessages": true, "requiresMistralToolIds": true,
		"supportsOpenAIGrammarTools": true, "supportsStrictMode": true, "sendSessionAffinityHeaders": true,
		"supportsLongCacheRetention": true, "supportsMaxOutputTokens": true,
		"supportsEagerToolInputStreaming": true, "supportsCacheControlOnTools": true,
		"supportsTemperature": true, "forceAdaptiveThinking": true, "allowEmptySignature": true,
		"supportsStrictTools": true, "supportsMidConvoEffort": true,
	}
	compatEnums = map[string][]string{
		"maxTokensField": {"max_completion_tokens", "max_tokens"},
		"thinkingFormat": {"openai", "openrouter", "together", "baseten", "deepseek", "zai", "qwen",
			"chat-template", "qwen-chat-template", "string-thinking", "ant-ling"},
		"cacheControlFormat":    {"anthropic"},
		"sessionAffinityFormat": {"openai", "openai-nosession", "openrouter"},
	}
	compatNumbers = map[string]bool{"vllmPriority": true, "toolCallIdMaxLength": true}
	compatObjects = map[string]bool{"openRouterRouting": true, "vercelGatewayRouting": true,
		"chatTemplateKwargs": true, "chatTemplateArgs": true, "reasoningEffortMap": true}
)

func (v *validator) compat(path string, x any) json.RawMessage {
	o := v.obj(path, x)
	if o == nil {
		return nil
	}
	for _, k := range o.keys {
		val, kp := o.vals[k], member(path, k)
		switch {
		case compatBools[k]:
			v.boolean(kp, val)
		case compatNumbers[k]:
			v.number(kp, val)
		case compatObjects[k]:
			v.obj(kp, val)
		case compatEnums[k] != nil:
			s, ok := val.(string)
			valid := false
			for _, e := range compatEnums[k] {
				valid = valid || (ok && s == e)
			}
			if !valid {
				v.fail(kp, "expected one of %s, got %s", quoteAll(compatEnums[k]), describe(val))
			}
		}
	}
	b, _ := llm.Marshal(toPlain(o))
	return b
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
