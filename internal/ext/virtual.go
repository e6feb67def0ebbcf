package ext

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
)

// virtualModel is a model an extension registered with
// registerVirtualModel: selectable like any other, routed to a physical
// model before every request by the extension's route() (spec §4).
type virtualModel struct {
	src   string
	model *llm.Model

	mu     sync.Mutex
	routed *llm.Model // the last physical model route() chose
}

// addVirtualModel records a virtual model (a second registration of the
// same provider/id replaces the first) and puts the router on the seam
// once.
func (m *Manager) addVirtualModel(src string, it regItem) error {
	var reg struct {
		Model json.RawMessage `json:"model"`
	}
	if err := json.Unmarshal(it.Raw, &reg); err != nil {
		return fmt.Errorf("registerVirtualModel: %w", err)
	}
	var def struct {
		Provider       string   `json:"provider"`
		ID             string   `json:"id"`
		Name           string   `json:"name"`
		ThinkingLevels []string `json:"thinkingLevels"`
		ContextWindow  int      `json:"contextWindow"`
		MaxTokens      int      `json:"maxTokens"`
		Input          []string `json:"input"`
	}
	if err := json.Unmarshal(reg.Model, &def); err != nil {
		return fmt.Errorf("registerVirtualModel: %w", err)
	}
	if m.base != nil && m.base.Find(def.Provider, def.ID) != nil {
		return fmt.Errorf("registerVirtualModel %s/%s: a physical model has that id", def.Provider, def.ID)
	}
	mod := &llm.Model{Provider: def.Provider, ID: def.ID, Name: def.Name, ContextWindow: def.ContextWindow, MaxTokens: def.MaxTokens,
		Input: def.Input, API: "virtual", Type: "virtual"}
	if mod.Name == "" {
		mod.Name = def.ID
	}
	if len(mod.Input) == 0 {
		mod.Input = []string{"text"}
	}
	for _, l := range def.ThinkingLevels {
		if l != "off" {
			mod.Reasoning = true
		}
	}
	m.mu.Lock()
	if m.virtual == nil {
		m.virtual = map[string]*virtualModel{}
	}
	m.virtual[def.Provider+"/"+def.ID] = &virtualModel{src: src, model: mod}
	first := !m.routerOn
	m.routerOn = true
	m.mu.Unlock()
	if first {
		m.opts.Hooks.Route.On("extensions", m.route)
	}
	return nil
}

func (m *Manager) virtualOf(model *llm.Model) *virtualModel {
	if model == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.virtual[model.Provider+"/"+model.ID]
}

// route asks the extension owning the selected virtual model for the
// physical model of this request. A failure or a model that is virtual or
// unknown ends the request (spec §4).
func (m *Manager) route(ctx context.Context, e *hooks.Route) (hooks.RouteResult, error) {
	v := m.virtualOf(e.Model)
	if v == nil {
		return hooks.RouteResult{}, nil
	}
	raw, err := m.callTimed(ctx, "route", map[string]any{"model": e.Model.Provider + "/" + e.Model.ID, "state": m.state(),
		"request": map[string]any{"model": e.Model, "thinkingLevel": e.ThinkingLevel, "reason": e.Reason, "prompt": e.Prompt}})
	if err != nil {
		return hooks.RouteResult{}, fmt.Errorf("%s: route: %w", v.src, err)
	}
	var r struct {
		Model *struct {
			Provider string `json:"provider"`
			ID       string `json:"id"`
		} `json:"model"`
		ThinkingLevel llm.ThinkingLevel `json:"thinkingLevel"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Model == nil {
		return hooks.RouteResult{}, fmt.Errorf("%s: route returned no model", v.src)
	}
	var phys *llm.Model
	if m.base != nil {
		phys = m.base.Find(r.Model.Provider, r.Model.ID)
	}
	if phys == nil || m.virtualOf(phys) != nil {
		return hooks.RouteResult{}, fmt.Errorf("%s: route chose %s/%s, which is not a physical model", v.src, r.Model.Provider, r.Model.ID)
	}
	level := r.ThinkingLevel
	if level == "" {
		level = e.ThinkingLevel
	}
	if !phys.Reasoning {
		level = llm.ThinkingOff
	}
	v.mu.Lock()
	v.routed = phys
	v.mu.Unlock()
	return hooks.RouteResult{Model: phys, ThinkingLevel: level}, nil
}

// Models wraps the registry the runtime is built with so the extensions'
// virtual models can be found and selected.
func (m *Manager) Models(base app.Models) app.Models {
	if m == nil {
		return base
	}
	m.mu.Lock()
	m.base = base
	var clash []error
	for k, v := range m.virtual {
		if base.Find(v.model.Provider, v.model.ID) != nil {
			delete(m.virtual, k)
			clash = append(clash, &LoadError{Path: v.src, Err: fmt.Errorf("registerVirtualModel %s: a physical model has that id", k)})
		}
	}
	m.mu.Unlock()
	for _, err := range clash {
		m.report(pathOf(err), "register", err)
	}
	return extModels{Models: base, m: m}
}

// available lists the models with credentials of the registry the
// runtime uses (Models wrapped it; nil before).
func (m *Manager) available() []*llm.Model {
	m.mu.Lock()
	base := m.base
	m.mu.Unlock()
	if base == nil {
		return nil
	}
	return extModels{Models: base, m: m}.Available()
}

type extModels struct {
	app.Models
	m *Manager
}

func (x extModels) Find(provider, id string) *llm.Model {
	if v := x.m.virtualOf(&llm.Model{Provider: provider, ID: id}); v != nil {
		return v.model
	}
	return x.Models.Find(provider, id)
}

func (x extModels) Available() []*llm.Model {
	out := x.Models.Available()
	x.m.mu.Lock()
	defer x.m.mu.Unlock()
	for _, v := range x.m.virtual {
		out = append(out, v.model)
	}
	return out
}

// Client of a virtual model streams with the model it was last routed to
// (requests made outside routing, such as compaction).
func (x extModels) Client(model *llm.Model) (llm.Client, error) {
	if c := x.m.streamClient(model); c != nil {
		return c, nil
	}
	if v := x.m.virtualOf(model); v != nil {
		v.mu.Lock()
		phys := v.routed
		v.mu.Unlock()
		if phys == nil {
			return nil, fmt.Errorf("virtual model %s/%s has not been routed yet", model.Provider, model.ID)
		}
		return x.Client(phys)
	}
	return x.Models.Client(model)
}

func (x extModels) Auth(ctx context.Context, model *llm.Model) (string, map[string]string, error) {
	if v := x.m.virtualOf(model); v != nil {
		v.mu.Lock()
		phys := v.routed
		v.mu.Unlock()
		if phys != nil {
			return x.Models.Auth(ctx, phys)
		}
	}
	return x.Models.Auth(ctx, model)
}

// VirtualModel returns the virtual model ref names ("provider/id", with an
// optional ":level" suffix), for --model at start-up; nil when no
// extension registered it.
func (m *Manager) VirtualModel(ref string) (*llm.Model, llm.ThinkingLevel) {
	if m == nil || ref == "" {
		return nil, ""
	}
	var level llm.ThinkingLevel
	if i := strings.LastIndexByte(ref, ':'); i > 0 {
		if l, ok := llm.ParseThinkingLevel(ref[i+1:]); ok {
			ref, level = ref[:i], l
		}
	}
	provider, id, ok := strings.Cut(ref, "/")
	if !ok {
		return nil, ""
	}
	if v := m.virtualOf(&llm.Model{Provider: provider, ID: id}); v != nil {
		return v.model, level
	}
	return nil, ""
}
