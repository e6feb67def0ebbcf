package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// ModelCatalog is what the models global reads: every known model, and
// the ones whose provider has working credentials.
type ModelCatalog interface {
	All() []*llm.Model
	Available(ctx context.Context) []*llm.Model
}

var modelTypes = []string{"chat", "image", "classifier"}

// modelType is a catalog entry's type; entries without one are chat models.
func modelType(m *llm.Model) string {
	if m.Type == "" {
		return "chat"
	}
	return m.Type
}

func checkType(v any) (string, error) {
	if s, ok := v.(string); ok {
		for _, t := range modelTypes {
			if s == t {
				return s, nil
			}
		}
	}
	b, _ := json.Marshal(v)
	return "", fmt.Errorf("Unknown model type %s. Use \"chat\", \"image\", or \"classifier\".", b)
}

func optProvider(v any) (string, error) {
	switch p := v.(type) {
	case nil:
		return "", nil
	case string:
		return p, nil
	}
	return "", errors.New("provider must be a string")
}

// modelInfo is a catalog entry as scripts see it: headers are left out,
// since models.json headers can carry credentials.
func modelInfo(m *llm.Model) map[string]any {
	c := *m
	c.Headers = nil
	b, _ := json.Marshal(&c)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	out["type"] = modelType(m)
	return out
}

func withArticle(w string) string {
	if strings.ContainsRune("aeiou", rune(w[0])) {
		return "an " + w
	}
	return "a " + w
}

// models runs one models.* call: op is the method, args its arguments as
// a JSON array. The listing methods resolve to catalog entries; classify
// and generateImages check their model, then resolve to a result with
// stopReason "error" naming why it did not run: relay has no client for
// classifier or image models yet, and provider failures never throw.
func (t *Tool) models(ctx context.Context, rec *recorder, op string, raw json.RawMessage) (json.RawMessage, error) {
	cat := t.cfg.Models
	if cat == nil {
		return nil, errors.New("models are not available here")
	}
	var a []any
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("models.%s(): arguments are not JSON", op)
	}
	arg := func(i int) any {
		if i < len(a) {
			return a[i]
		}
		return nil
	}
	of := func(list []*llm.Model, typ, provider string) []map[string]any {
		out := []map[string]any{}
		for _, m := range list {
			if modelType(m) == typ && (provider == "" || m.Provider == provider) {
				out = append(out, modelInfo(m))
			}
		}
		return out
	}
	find := func(typ, provider, id string) *llm.Model {
		for _, m := range cat.All() {
			if modelType(m) == typ && m.Provider == provider && m.ID == id {
				return m
			}
		}
		return nil
	}
	switch op {
	case "getModelsOfType", "getAvailableOfType":
		typ, err := checkType(arg(0))
		if err != nil {
			return nil, err
		}
		p, err := optProvider(arg(1))
		if err != nil {
			return nil, err
		}
		list := cat.All()
		if op == "getAvailableOfType" {
			list = cat.Available(ctx)
		}
		return json.Marshal(of(list, typ, p))
	case "getModelOfType":
		typ, err := checkType(arg(0))
		if err != nil {
			return nil, err
		}
		p, ok1 := arg(1).(string)
		id, ok2 := arg(2).(string)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("models.getModelOfType(type, provider, id) expects three strings. The provider and the id are separate arguments, for example models.getModelOfType(\"classifier\", \"typesafe\", \"jev-latest\").")
		}
		if m := find(typ, p, id); m != nil {
			return json.Marshal(modelInfo(m))
		}
		return nil, nil
	case "classify", "generateImages":
		typ := "classifier"
		if op == "generateImages" {
			typ = "image"
		}
		list := fmt.Sprintf("List the %s models you can use with models.getAvailableOfType(%q).", typ, typ)
		m, _ := arg(0).(map[string]any)
		p, _ := m["provider"].(string)
		id, _ := m["id"].(string)
		if p == "" || id == "" {
			return nil, fmt.Errorf("models.%s() expects %s model as its first argument (at least { provider, id }). %s", op, withArticle(typ), list)
		}
		model := find(typ, p, id)
		if model == nil {
			for _, other := range modelTypes {
				if other != typ && find(other, p, id) != nil {
					return nil, fmt.Errorf("%q is %s model, not %s model. %s", p+"/"+id, withArticle(other), withArticle(typ), list)
				}
			}
			return nil, fmt.Errorf("Unknown %s model %q. %s", typ, p+"/"+id, list)
		}
		if c, ok := arg(1).(map[string]any); !ok || c == nil {
			return nil, fmt.Errorf("models.%s() expects a context object as its second argument", op)
		}
		i := rec.start("models."+op, json.RawMessage(fmt.Sprintf("%q", p+"/"+id)))
		rec.setID(i, fmt.Sprintf("%s/models.%s/%d", rec.parent, op, i+1))
		msg := fmt.Sprintf("relay cannot run %s models yet: no client for api %q", typ, model.API)
		rec.finish(i, "error", msg, 0)
		res := map[string]any{"provider": p, "model": id, "stopReason": "error", "errorMessage": msg}
		if typ == "classifier" {
			res["answers"] = map[string]any{}
		} else {
			res["output"] = []any{}
		}
		return json.Marshal(res)
	}
	return nil, fmt.Errorf("models.%s is not a function", op)
}
