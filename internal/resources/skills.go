package resources

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Agent Skills limits (skills.md "Write portable frontmatter").
const (
	MaxNameLength        = 64
	MaxDescriptionLength = 1024
)

// Skill is one discovered skill. Only its name, description and location
// enter the system prompt; the model reads the file when a task matches.
type Skill struct {
	Name        string
	Description string
	// FilePath is the skill file (SKILL.md or a standalone .md).
	FilePath string
	// BaseDir is the skill's directory: relative references resolve here.
	BaseDir string
	// DisableModelInvocation hides the skill from the system prompt; only
	// /skill:name loads it.
	DisableModelInvocation bool
	Source                 SourceInfo
}

// discoveryMode says where standalone Markdown files count as skills: in
// relay's own skill directories root-level *.md files do; in Agent Skills
// directories (.agents/skills) only files below the root do.
type discoveryMode int

const (
	modeRelay discoveryMode = iota
	modeAgents
)

// collectSkillFiles lists the skill entry files under dir: a directory
// holding SKILL.md is one skill (nothing below it is searched); other
// directories are searched recursively, skipping dot entries,
// node_modules and what .gitignore/.ignore/.fdignore files exclude.
// Standalone .md files are candidates only; loadSkillFile keeps those
// with a description.
func collectSkillFiles(dir string, mode discoveryMode, c *canon) []string {
	var out []string
	ig := newIgnorer(dir)
	seen := map[string]bool{} // symlinked directories may loop
	var walk func(d string)
	walk = func(d string) {
		real := c.path(d)
		if seen[real] {
			return
		}
		seen[real] = true
		entries, err := os.ReadDir(d)
		if err != nil {
			return
		}
		ig.enter(d, entries)
		for _, e := range entries {
			if e.Name() != "SKILL.md" {
				continue
			}
			skill := filepath.Join(d, e.Name())
			if _, isFile := entryKind(d, e); isFile && !ig.ignored(skill, false) {
				out = append(out, skill)
				return
			}
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || name == "node_modules" {
				continue
			}
			full := filepath.Join(d, name)
			isDir, isFile := entryKind(d, e)
			if isDir {
				if !ig.ignored(full, true) {
					walk(full)
				}
				continue
			}
			if !isFile || !strings.HasSuffix(name, ".md") || ig.ignored(full, false) {
				continue
			}
			if (mode == modeRelay && d == dir) || (mode == modeAgents && d != dir) {
				out = append(out, full)
			}
		}
	}
	walk(dir)
	return out
}

// validNameChars reports whether name is non-empty [a-z0-9-]+.
func validNameChars(name string) bool {
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return name != ""
}

// validateName returns the Agent Skills name violations (warnings only).
func validateName(name string) []string {
	var errs []string
	if n := len([]rune(name)); n > MaxNameLength {
		errs = append(errs, fmt.Sprintf("name exceeds %d characters (%d)", MaxNameLength, n))
	}
	if !validNameChars(name) {
		errs = append(errs, "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)")
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		errs = append(errs, "name must not start or end with a hyphen")
	}
	if strings.Contains(name, "--") {
		errs = append(errs, "name must not contain consecutive hyphens")
	}
	return errs
}

// loadSkillFile reads one skill file. A SKILL.md whose frontmatter does
// not parse, or any file without a description, yields no skill; name
// problems and an over-long description are warnings and the skill still
// loads (skills.md).
func loadSkillFile(path string, src SourceInfo) (*Skill, []Diagnostic) {
	declared := filepath.Base(path) == "SKILL.md"
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, []Diagnostic{warn(path, fmt.Sprintf("read skill: %v", unwrapPathError(err)))}
	}
	fm, _, err := ParseFrontmatter(string(data))
	if err != nil {
		if declared {
			return nil, []Diagnostic{warn(path, err.Error())}
		}
		return nil, nil
	}
	desc, _ := fm.String("description")
	hasDesc := strings.TrimSpace(desc) != ""
	if !declared && !hasDesc {
		return nil, nil
	}
	var diags []Diagnostic
	switch {
	case !hasDesc:
		diags = append(diags, warn(path, "description is required"))
	case len([]rune(desc)) > MaxDescriptionLength:
		diags = append(diags, warn(path, fmt.Sprintf("description exceeds %d characters (%d)", MaxDescriptionLength, len([]rune(desc)))))
	}
	dir := filepath.Dir(path)
	name, _ := fm.String("name")
	if name == "" {
		name = filepath.Base(dir)
	}
	for _, e := range validateName(name) {
		diags = append(diags, warn(path, e))
	}
	if !hasDesc {
		return nil, diags
	}
	src.Path = path
	return &Skill{Name: name, Description: desc, FilePath: path, BaseDir: dir,
		DisableModelInvocation: fm.Bool("disable-model-invocation"), Source: src}, diags
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
