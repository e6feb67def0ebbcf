package session

import "context"

type managerKey struct{}

// NewContext returns ctx carrying m: the runtime puts the open session on
// a tool call's context for tools that keep state in it (codemode's
// store).
func NewContext(ctx context.Context, m *Manager) context.Context {
	return context.WithValue(ctx, managerKey{}, m)
}

// FromContext returns the session NewContext stored, or nil.
func FromContext(ctx context.Context) *Manager {
	m, _ := ctx.Value(managerKey{}).(*Manager)
	return m
}
