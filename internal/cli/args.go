package cli

import (
	"fmt"
	"strings"
)

// Args is the parsed command line (upstream-spec-core.md §1.3–1.4).
//
// The scanner is hand-written rather than kong (design.md's choice): the
// original's rules are positional and contextual — `-p` takes the next
// argument only when it does not start with `-` or `@`, `--list-models`
// takes an optional search word, unknown long flags are kept for
// extensions with an optional value, and `@file` arguments survive `--` —
// which a declarative flag parser cannot express without fighting it.
type Args struct {
	Help, Version bool
	Mode          string // "", "text", "json", "rpc"
	Print         bool
	Export        []string // input [, output] — output may come from the first message
	ExportSet     bool
	Provider      string
	Model         string
	APIKey        string
	Thinking      string
	Models        []string
	ListModels    bool
	ListSearch    string
	Continue      bool
	Resume        bool
	Session       string
	SessionID     string
	Fork          string
	SessionDir    string
	NoSession     bool
	Name          *string
	Tools         []string
	ToolsSet      bool
	ExcludeTools  []string
	NoBuiltin     bool
	NoTools       bool
	Extensions    []string
	NoExtensions  bool
	Skills        []string
	NoSkills      bool
	Prompts       []string
	NoPrompts     bool
	Themes        []string
	NoThemes      bool
	UseTheme      string
	NoContext     bool
	SystemPrompt  string
	AppendSystem  []string
	TUIMode       string
	Verbose       bool
	Approve       *bool
	Offline       bool
	LayaPolicy    string

	Files    []string // @file arguments (without '@')
	Messages []string
	// ExtFlags holds unknown long flags for extensions.
	ExtFlags map[string]string
	Warnings []string
}

// UsageError is an argument error; Main prints "Error: ..." and exits 1.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usageErr(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

func splitCSV(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParseArgs scans args left to right as the original does.
func ParseArgs(args []string) (*Args, error) {
	a := &Args{ExtFlags: map[string]string{}}
	var exportArgs []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		next := func() (string, bool) {
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return "", false
		}
		if arg == "--" {
			for _, rest := range args[i+1:] {
				if strings.HasPrefix(rest, "@") {
					a.Files = append(a.Files, rest[1:])
				} else {
					a.Messages = append(a.Messages, rest)
				}
			}
			break
		}
		if strings.HasPrefix(arg, "@") {
			a.Files = append(a.Files, arg[1:])
			continue
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			a.Messages = append(a.Messages, arg)
			continue
		}
		name, inline, hasInline := strings.Cut(arg, "=")
		value := func() (string, bool) {
			if hasInline {
				return inline, true
			}
			return next()
		}
		switch name {
		case "-h", "--help":
			a.Help = true
		case "-v", "--version":
			a.Version = true
		case "--mode":
			v, ok := value()
			if !ok {
				return nil, usageErr("--mode requires a value (text, json or rpc)")
			}
			switch v {
			case "text", "json", "rpc":
				a.Mode = v
			default:
				return nil, usageErr("invalid --mode %q: expected text, json or rpc", v)
			}
		case "-p", "--print":
			a.Print = true
			if hasInline {
				a.Messages = append(a.Messages, inline)
			} else if i+1 < len(args) {
				n := args[i+1]
				if !strings.HasPrefix(n, "@") && (!strings.HasPrefix(n, "-") || strings.HasPrefix(n, "---")) {
					a.Messages = append(a.Messages, n)
					i++
				}
			}
		case "--export":
			a.ExportSet = true
			if v, ok := value(); ok {
				exportArgs = append(exportArgs, v)
			}
		case "--provider":
			a.Provider, _ = value()
		case "--model":
			a.Model, _ = value()
		case "--api-key":
			a.APIKey, _ = value()
		case "--thinking":
			a.Thinking, _ = value()
		case "--models":
			v, _ := value()
			a.Models = append(a.Models, splitCSV(v)...)
		case "--list-models":
			a.ListModels = true
			if hasInline {
				a.ListSearch = inline
			} else if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && !strings.HasPrefix(args[i+1], "@") {
				i++
				a.ListSearch = args[i]
			}
		case "-c", "--continue":
			a.Continue = true
		case "-r", "--resume":
			a.Resume = true
		case "--session":
			a.Session, _ = value()
		case "--session-id":
			a.SessionID, _ = value()
		case "--fork":
			a.Fork, _ = value()
		case "--session-dir":
			a.SessionDir, _ = value()
		case "--no-session":
			a.NoSession = true
		case "-n", "--name":
			v, ok := value()
			if !ok {
				return nil, usageErr("--name requires a value")
			}
			v = strings.TrimSpace(v)
			if v == "" {
				return nil, usageErr("--name must not be empty")
			}
			a.Name = &v
		case "-t", "--tools":
			v, _ := value()
			a.ToolsSet = true
			for _, t := range splitCSV(v) {
				if strings.HasPrefix(t, "+") || strings.HasPrefix(t, "-") {
					return nil, usageErr("--tools does not accept +name or -name (%q); use -xt to remove a tool", t)
				}
				a.Tools = append(a.Tools, t)
			}
		case "-xt", "--exclude-tools":
			v, _ := value()
			a.ExcludeTools = append(a.ExcludeTools, splitCSV(v)...)
		case "-nbt", "--no-builtin-tools":
			a.NoBuiltin = true
		case "-nt", "--no-tools":
			a.NoTools = true
		case "-e", "--extension":
			v, _ := value()
			a.Extensions = append(a.Extensions, v)
		case "-ne", "--no-extensions":
			a.NoExtensions = true
		case "--skill":
			v, _ := value()
			a.Skills = append(a.Skills, v)
		case "-ns", "--no-skills":
			a.NoSkills = true
		case "--prompt-template":
			v, _ := value()
			a.Prompts = append(a.Prompts, v)
		case "-np", "--no-prompt-templates":
			a.NoPrompts = true
		case "--theme":
			v, _ := value()
			a.Themes = append(a.Themes, v)
		case "--no-themes":
			a.NoThemes = true
		case "--use-theme":
			v, ok := value()
			if !ok {
				return nil, usageErr("--use-theme requires a theme name")
			}
			a.UseTheme = v
		case "-nc", "--no-context-files":
			a.NoContext = true
		case "--system-prompt":
			a.SystemPrompt, _ = value()
		case "--append-system-prompt":
			v, _ := value()
			a.AppendSystem = append(a.AppendSystem, v)
		case "--tui-mode":
			v, ok := value()
			if !ok {
				return nil, usageErr("--tui-mode requires a value (fullscreen or regular)")
			}
			if v != "fullscreen" && v != "regular" {
				return nil, usageErr("invalid --tui-mode %q: expected fullscreen or regular", v)
			}
			a.TUIMode = v
		case "--verbose":
			a.Verbose = true
		case "-a", "--approve":
			t := true
			a.Approve = &t
		case "-na", "--no-approve":
			f := false
			a.Approve = &f
		case "--offline":
			a.Offline = true
		case "--laya-policy":
			v, _ := value()
			switch v {
			case "economy", "balanced", "quality", "critical":
				a.LayaPolicy = v
			default:
				return nil, usageErr("invalid --laya-policy %q: expected economy, balanced, quality or critical", v)
			}
		default:
			if !strings.HasPrefix(arg, "--") {
				return nil, usageErr("Unknown option: %s", arg)
			}
			key := strings.TrimPrefix(name, "--")
			if hasInline {
				a.ExtFlags[key] = inline
			} else if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && !strings.HasPrefix(args[i+1], "@") {
				i++
				a.ExtFlags[key] = args[i]
			} else {
				a.ExtFlags[key] = "true"
			}
		}
	}
	if a.ExportSet {
		a.Export = exportArgs
	}
	return a, a.validate()
}

func (a *Args) validate() error {
	if a.Fork != "" && (a.Session != "" || a.Continue || a.Resume || a.NoSession) {
		return usageErr("--fork cannot be combined with --session, --continue, --resume or --no-session")
	}
	if a.SessionID != "" && (a.Session != "" || a.Continue || a.Resume) {
		return usageErr("--session-id cannot be combined with --session, --continue or --resume")
	}
	if a.Provider != "" && a.Model == "" {
		return usageErr("--provider requires --model")
	}
	if a.APIKey != "" && a.Model == "" && len(a.Models) == 0 {
		return usageErr("--api-key requires a model chosen with --model or --models")
	}
	return nil
}
