package config

import (
	"path/filepath"
)

// Agent names the well-known files of an agent directory (§7.1).
type Agent struct{ Dir string }

func (a Agent) Settings() string     { return filepath.Join(a.Dir, "settings.json") }
func (a Agent) Keybindings() string  { return filepath.Join(a.Dir, "keybindings.json") }
func (a Agent) MCP() string          { return filepath.Join(a.Dir, "mcp.json") }
func (a Agent) Models() string       { return filepath.Join(a.Dir, "models.json") }
func (a Agent) Auth() string         { return filepath.Join(a.Dir, "auth.json") }
func (a Agent) Trust() string        { return filepath.Join(a.Dir, "trust.json") }
func (a Agent) System() string       { return filepath.Join(a.Dir, "SYSTEM.md") }
func (a Agent) AppendSystem() string { return filepath.Join(a.Dir, "APPEND_SYSTEM.md") }
func (a Agent) Extensions() string   { return filepath.Join(a.Dir, "extensions") }
func (a Agent) Skills() string       { return filepath.Join(a.Dir, "skills") }
func (a Agent) Prompts() string      { return filepath.Join(a.Dir, "prompts") }
func (a Agent) Themes() string       { return filepath.Join(a.Dir, "themes") }
func (a Agent) Sessions() string     { return filepath.Join(a.Dir, "sessions") }
func (a Agent) DebugLog() string     { return filepath.Join(a.Dir, "relay-debug.log") }
func (a Agent) Laya() string         { return filepath.Join(a.Dir, "laya") }

// Project names the well-known files of a project's .relay directory (§7.2).
// They are loaded only after project trust is granted.
type Project struct{ Cwd string }

func (p Project) Dir() string          { return filepath.Join(p.Cwd, DirName) }
func (p Project) Settings() string     { return filepath.Join(p.Dir(), "settings.json") }
func (p Project) MCP() string          { return filepath.Join(p.Dir(), "mcp.json") }
func (p Project) System() string       { return filepath.Join(p.Dir(), "SYSTEM.md") }
func (p Project) AppendSystem() string { return filepath.Join(p.Dir(), "APPEND_SYSTEM.md") }
func (p Project) Extensions() string   { return filepath.Join(p.Dir(), "extensions") }
func (p Project) Skills() string       { return filepath.Join(p.Dir(), "skills") }
func (p Project) Prompts() string      { return filepath.Join(p.Dir(), "prompts") }
func (p Project) Themes() string       { return filepath.Join(p.Dir(), "themes") }

// TrustRequiringProjectEntries are the entries of .relay whose presence makes
// a project need a trust decision (§7.3). A bare .relay needs none.
func TrustRequiringProjectEntries() []string {
	return []string{"settings.json", "mcp.json", "extensions", "skills", "prompts", "themes", "SYSTEM.md", "APPEND_SYSTEM.md"}
}
