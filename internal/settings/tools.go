package settings

import "strings"

func isToolModifier(e string) bool { return strings.HasPrefix(e, "+") || strings.HasPrefix(e, "-") }

func allModifiers(list []string) bool {
	for _, e := range list {
		if !isToolModifier(e) {
			return false
		}
	}
	return true
}

// ResolveTools returns the startup tool selection from the defaultTools
// lists of the user and project files (has* false = the file does not set
// it), as settings.md "Tools" explains:
//
//   - a project list of only +name/-name entries changes the user's list;
//     a project list with a plain name replaces it;
//   - in the resulting list, plain names form the selection (none at all:
//     the defaults read, bash, edit, write; an empty list: no tools), then
//     +name adds and -name removes, in order.
//
// An empty project list counts as "only modifiers" and so leaves the user's
// selection as it is, as in the original.
func ResolveTools(user, project []string, hasUser, hasProject bool) []string {
	var entries []string
	switch {
	case hasUser && hasProject && allModifiers(project):
		entries = append(append([]string{}, user...), project...)
	case hasProject:
		entries = project
	case hasUser:
		entries = user
	default:
		return DefaultToolNames()
	}
	tools := []string{}
	plain := false
	for _, e := range entries {
		if !isToolModifier(e) {
			plain = true
			if !contains(tools, e) {
				tools = append(tools, e)
			}
		}
	}
	if !plain && len(entries) > 0 {
		tools = DefaultToolNames()
	}
	for _, e := range entries {
		if !isToolModifier(e) {
			continue
		}
		name := e[1:]
		if name == "" {
			continue
		}
		if e[0] == '+' {
			if !contains(tools, name) {
				tools = append(tools, name)
			}
		} else {
			tools = remove(tools, name)
		}
	}
	return tools
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func remove(list []string, s string) []string {
	out := list[:0]
	for _, e := range list {
		if e != s {
			out = append(out, e)
		}
	}
	return out
}
