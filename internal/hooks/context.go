package hooks

import (
	"context"
	"errors"

	"github.com/relay-agent/relay/internal/llm"
)

// RunContextWithSystem chains the context_with_system handlers over the
// whole transcript of one request: msgs begins with the system message
// (the prompt and the tool declarations) and each handler's messages are
// used as returned. A handler that drops the leading system message is
// reported, and its output still stands (the request then has no prompt
// and no tools).
func (s *Set) RunContextWithSystem(ctx context.Context, model *llm.Model, msgs []llm.Message) []llm.Message {
	e := Context{Model: model, Messages: msgs}
	s.ContextWithSystem.each(ctx, &e, func(source string, r ContextResult) bool {
		if r.Messages == nil {
			return false
		}
		hadSystem := leadingSystem(e.Messages)
		e.Messages = r.Messages
		if hadSystem && !leadingSystem(e.Messages) {
			s.report(s.ContextWithSystem.name, source, errors.New("handler removed the leading system message; the request has no prompt or tool declarations"))
		}
		return false
	}, nil)
	return e.Messages
}

func leadingSystem(msgs []llm.Message) bool {
	if len(msgs) == 0 {
		return false
	}
	_, ok := msgs[0].(*llm.SystemMessage)
	return ok
}
