// Package commands is relay's one registry of slash commands. Built-in
// commands, prompt templates, skills and extension commands register a
// name, description, source, argument completion and handler once; every
// front end reads the same registry (the TUI's completion and dispatch,
// RPC get_commands, print and JSON modes, /hotkeys).
package commands

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Source says who provides a command.
type Source string

const (
	// Builtin commands are relay's own (runtime or front end).
	Builtin Source = "builtin"
	// Prompt commands are prompt templates: the text is expanded and sent.
	Prompt Source = "prompt"
	// Skill commands ("skill:<name>") load a skill's instructions.
	Skill Source = "skill"
	// Extension commands are registered by extensions.
	Extension Source = "extension"
)

// Output is what a command's handler produced.
type Output struct {
	// Text is the message to show ("" for none).
	Text string
	// Terminal holds bytes for the front end to write to its terminal
	// (the OSC 52 clipboard sequence of /copy).
	Terminal string
	// SessionReplaced is true when another session was opened: the front
	// end redraws from the new branch.
	SessionReplaced bool
}

// Handler runs a command with the text after its name (trimmed).
type Handler func(ctx context.Context, args string) (Output, error)

// Completion is one argument completion.
type Completion struct {
	Value       string
	Description string
}

// Command is one registered slash command.
type Command struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Source      Source `json:"source"`
	// SourceInfo says where a template, skill or extension command comes
	// from (resources.SourceInfo for templates and skills).
	SourceInfo any `json:"sourceInfo"`
	// Run handles the command. Nil for prompt templates and skills (their
	// text is expanded into a prompt) and for commands a front end
	// handles with its own dialogs.
	Run Handler `json:"-"`
	// Complete offers completions for the argument typed so far.
	Complete func(prefix string) []Completion `json:"-"`
	// Frontend marks a command only an interactive front end can run
	// (it opens a dialog); other modes report it as unavailable.
	Frontend bool `json:"-"`
}

// Registry holds the commands in registration order.
type Registry struct {
	mu        sync.RWMutex
	order     []string
	byKey     map[string]*Command
	shortcuts map[string]*Shortcut
}

// New returns an empty registry.
func New() *Registry { return &Registry{byKey: map[string]*Command{}} }

// Register adds c. A name already taken is an error naming both sources,
// so a duplicate from an extension never shadows a built-in silently.
func (r *Registry) Register(c Command) error {
	name := strings.TrimPrefix(strings.TrimSpace(c.Name), "/")
	if name == "" || strings.ContainsAny(name, " \t\n") {
		return fmt.Errorf("register command %q: invalid name", c.Name)
	}
	c.Name = name
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.byKey[name]; ok {
		return fmt.Errorf("register command /%s (%s): already registered by %s", name, c.Source, old.Source)
	}
	r.byKey[name] = &c
	r.order = append(r.order, name)
	return nil
}

// Replace removes every command of source and registers cmds in their
// place (templates and skills after /reload). Names another source holds
// are skipped and returned as errors.
func (r *Registry) Replace(source Source, cmds []Command) []error {
	r.mu.Lock()
	keep := r.order[:0:0]
	for _, n := range r.order {
		if r.byKey[n].Source == source {
			delete(r.byKey, n)
			continue
		}
		keep = append(keep, n)
	}
	r.order = keep
	r.mu.Unlock()
	var errs []error
	for _, c := range cmds {
		c.Source = source
		if err := r.Register(c); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Unregister removes a command.
func (r *Registry) Unregister(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byKey[name]; !ok {
		return
	}
	delete(r.byKey, name)
	for i, n := range r.order {
		if n == name {
			r.order = append(r.order[:i:i], r.order[i+1:]...)
			break
		}
	}
}

// Get returns a command by name (without the slash).
func (r *Registry) Get(name string) (Command, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c, ok := r.byKey[name]
	if !ok {
		return Command{}, false
	}
	return *c, true
}

// All returns the commands in registration order, filtered by sources
// (none = every source).
func (r *Registry) All(sources ...Source) []Command {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Command, 0, len(r.order))
	for _, n := range r.order {
		c := r.byKey[n]
		if len(sources) > 0 && !hasSource(sources, c.Source) {
			continue
		}
		out = append(out, *c)
	}
	return out
}

func hasSource(list []Source, s Source) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Split splits "/name rest" into "name" and the trimmed rest.
func Split(line string) (name, args string) {
	line = strings.TrimPrefix(strings.TrimSpace(line), "/")
	name, args, _ = strings.Cut(line, " ")
	return name, strings.TrimSpace(args)
}

// Run runs the command line ("/name args") when a registered command with
// a handler owns it; handled is false otherwise (unknown names, templates
// and skills, front-end commands), and the caller decides.
func (r *Registry) Run(ctx context.Context, line string) (out Output, handled bool, err error) {
	name, args := Split(line)
	c, ok := r.Get(name)
	if !ok || c.Run == nil {
		return Output{}, false, nil
	}
	out, err = c.Run(ctx, args)
	return out, true, err
}

// Complete returns command-name completions for prefix (without the
// slash), shortest exact-prefix matches first; after a space, the
// command's own argument completion.
func (r *Registry) Complete(prefix string) []Completion {
	if name, arg, ok := strings.Cut(prefix, " "); ok {
		c, found := r.Get(name)
		if !found || c.Complete == nil {
			return nil
		}
		return c.Complete(arg)
	}
	p := strings.ToLower(prefix)
	var out []Completion
	for _, c := range r.All() {
		if strings.HasPrefix(strings.ToLower(c.Name), p) {
			out = append(out, Completion{Value: c.Name, Description: c.Description})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Value == prefix && out[j].Value != prefix })
	return out
}
