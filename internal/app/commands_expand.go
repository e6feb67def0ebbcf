package app

// ExpandCommand turns "/skill:name args" into the skill's instructions
// and "/template args" into the template with its arguments substituted,
// before the text becomes a user message (prompt, steer and follow-up
// alike). handled is false, and text comes back unchanged, for any other
// text, an unknown name, or a skill file that can no longer be read.
func (r *Runtime) expandCommand(text string) (expanded string, handled bool) {
	set := r.res.Get()
	if set == nil {
		return text, false
	}
	out, ok, err := set.Expand(text)
	if err != nil {
		return text, false
	}
	return out, ok
}
