package harness

import "strings"

// git skips the global options (-C, -c, --git-dir ...), resolves aliases
// defined with -c, and applies the rules to the subcommand.
func (s *shellScanner) git(words []shellWord, text string) {
	args := words[1:]
	aliases := map[string]string{}
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if couldBeOption(a) {
			s.opaque("git's options come from an expansion", text)
			return
		}
		t := a.text
		if !strings.HasPrefix(t, "-") {
			break
		}
		name, value, hasValue := strings.Cut(t, "=")
		if strings.HasPrefix(t, "-C") && t != "-C" || strings.HasPrefix(t, "-c") && t != "-c" {
			name, value, hasValue = t[:2], t[2:], true
		}
		if gitGlobalsWithValue()[name] && !hasValue {
			if i+1 >= len(args) {
				return
			}
			i++
			value = args[i].text
			if !args[i].static && (name == "-c" || name == "--config-env") {
				s.opaque("git configuration from an expansion", text)
				return
			}
		}
		switch name {
		case "-c":
			key, v, _ := strings.Cut(value, "=")
			if k := strings.ToLower(key); strings.HasPrefix(k, "alias.") {
				aliases[k[len("alias."):]] = v
			} else if gitCommandKeyRe().MatchString(key) {
				if strings.EqualFold(key, "core.hooksPath") {
					s.opaque("git hooks from another directory", text)
				} else if v != "" {
					s.script(v, text)
				}
			}
		case "--config-env":
			if key, _, _ := strings.Cut(value, "="); gitCommandKeyRe().MatchString(key) || strings.HasPrefix(strings.ToLower(key), "alias.") {
				s.opaque("a git command taken from the environment", text)
				return
			}
		case "--exec-path":
			if hasValue {
				s.opaque("git commands from another directory", text)
				return
			}
		}
	}
	if i >= len(args) {
		return
	}
	sub := args[i]
	if !sub.static {
		s.opaque("the git subcommand comes from an expansion", text)
		return
	}
	rest := args[i+1:]
	if v, ok := aliases[strings.ToLower(sub.text)]; ok {
		if strings.HasPrefix(v, "!") {
			s.script(v[1:], text)
			return
		}
		if s.depth >= maxShellDepth {
			s.opaque("git aliases nested too deeply to follow", text)
			return
		}
		aliased, ok := scriptWords("git " + v)
		if !ok {
			s.opaque("a git alias that is not one simple command", text)
			return
		}
		s.depth++
		s.git(append(aliased, rest...), text)
		s.depth--
		return
	}
	if !gitCommands()[sub.text] {
		s.opaque("`git "+sub.text+"` is an alias or extension whose effect is not known", text)
		return
	}
	canon := canonical(append([]shellWord{{text: "git", static: true}, sub}, rest...))
	s.gitRules(sub.text, rest, canon, text)
}

func (s *shellScanner) gitRules(sub string, rest []shellWord, canon, text string) {
	d, x := EffectDestructive, EffectExternal
	dynamicOption := false
	for _, a := range rest {
		if a.text == "--" {
			break
		}
		if couldBeOption(a) {
			dynamicOption = true
		}
	}
	has := func(pred func(string) bool) bool {
		for _, a := range rest {
			if pred(a.text) {
				return true
			}
		}
		return false
	}
	operand := func(v string) bool {
		for _, a := range rest {
			if a.text == v {
				return true
			}
		}
		return false
	}
	switch sub {
	case "push":
		force := has(func(t string) bool {
			return t == "--force" || strings.HasPrefix(t, "--force-with-lease") || t == "--force-if-includes" ||
				strings.ContainsRune(shortCluster(t), 'f') || strings.HasPrefix(t, "+") && len(t) > 1 || t == "--mirror" || t == "--delete" || t == "-d"
		})
		switch {
		case force:
			s.add(d, "force push rewrites remote history", canon)
		case dynamicOption:
			s.opaque("git push with options from an expansion", text)
		default:
			s.add(x, "git push changes the remote", canon)
		}
		return
	case "reset":
		if has(func(t string) bool { return t == "--hard" || t == "--merge" || t == "--keep" }) {
			s.add(d, "git reset --hard discards uncommitted work", canon)
			return
		}
	case "clean":
		if has(func(t string) bool { return t == "--force" || strings.ContainsRune(shortCluster(t), 'f') }) {
			s.add(d, "git clean -f deletes untracked files", canon)
			return
		}
	case "checkout":
		if operand(".") || operand(":/") || has(func(t string) bool { return t == "--force" || t == "-f" }) {
			s.add(d, "git checkout . discards uncommitted changes", canon)
			return
		}
	case "restore":
		if operand(".") || operand(":/") {
			s.add(d, "git restore . discards uncommitted changes", canon)
			return
		}
	case "switch":
		if has(func(t string) bool { return t == "--discard-changes" || t == "--force" || t == "-f" }) {
			s.add(d, "git checkout . discards uncommitted changes", canon)
			return
		}
	case "stash":
		if len(rest) > 0 && (rest[0].text == "drop" || rest[0].text == "clear") {
			s.add(d, "git stash drop/clear deletes stashed work", canon)
			return
		}
	case "branch":
		if has(func(t string) bool {
			return strings.ContainsRune(shortCluster(t), 'D')
		}) || has(func(t string) bool { return t == "--delete" || t == "-d" }) && has(func(t string) bool { return t == "--force" || t == "-f" }) {
			s.add(d, "git branch -D deletes an unmerged branch", canon)
			return
		}
	case "filter-branch", "filter-repo":
		s.add(d, "history rewrite", canon)
		return
	case "rebase":
		if !has(func(t string) bool {
			return t == "--continue" || t == "--abort" || t == "--skip" || t == "--quit" || t == "--edit-todo" || t == "--show-current-patch"
		}) {
			s.add(d, "rebase rewrites history", canon)
		}
		return
	case "submodule":
		for i, a := range rest {
			if a.text == "foreach" {
				j := i + 1
				for j < len(rest) && strings.HasPrefix(rest[j].text, "-") {
					j++
				}
				if j < len(rest) {
					s.evalArgs(rest[j:], stdinSource{}, text, "git submodule foreach")
				}
				return
			}
		}
		return
	case "bisect":
		if len(rest) > 1 && rest[0].text == "run" {
			s.depth++
			s.argv(rest[1:], stdinSource{}, text)
			s.depth--
		}
		return
	}
	if dynamicOption && (sub == "reset" || sub == "clean" || sub == "checkout" || sub == "restore" || sub == "branch" || sub == "stash" || sub == "switch") {
		s.opaque("git "+sub+" with options from an expansion", text)
	}
}
