package app

import "context"

// Approver asks the person to allow a destructive or external command
// (TUI dialog, RPC extension UI). Without one the harness refuses.
type Approver interface {
	Confirm(ctx context.Context, title, message string) (bool, error)
}

// SetApprover installs the front end's approver.
func (r *Runtime) SetApprover(a Approver) {
	r.mu.Lock()
	r.approver = a
	r.mu.Unlock()
}

// Approver returns the installed approver (nil in print and JSON modes).
func (r *Runtime) Approver() Approver {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.approver
}
