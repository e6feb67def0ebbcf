package resources

import (
	"os"
	"path/filepath"
	"strings"
)

// The functions below share the discovery rules of skills and templates
// with the package resolver (internal/packages), which finds the same
// kinds of files inside installed packages and applies the same filter
// syntax to them.

// SkillFiles lists the skill entry files under dir as relay's own skill
// directories are searched (root-level *.md files are candidates).
func SkillFiles(dir string) []string { return collectSkillFiles(dir, modeRelay, newCanon()) }

// AgentsSkillFiles lists the skill entry files under an Agent Skills
// directory (.agents/skills: only *.md files below the root).
func AgentsSkillFiles(dir string) []string { return collectSkillFiles(dir, modeAgents, newCanon()) }

// FilesWithSuffix lists the files under dir whose names end in one of
// suffixes, recursively, skipping dot entries, node_modules and what the
// ignore files exclude.
func FilesWithSuffix(dir string, suffixes ...string) []string {
	return collectFiles(dir, newCanon(), suffixes)
}

// DirectFilesWithSuffix lists the direct children of dir whose names end
// in one of suffixes, minus dot files and ignored ones (the conventional
// prompts and themes directories are not searched recursively).
func DirectFilesWithSuffix(dir string, suffixes ...string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	ig := newIgnorer(dir)
	ig.enter(dir, entries)
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" || !hasSuffix(name, suffixes) {
			continue
		}
		full := filepath.Join(dir, name)
		if _, isFile := entryKind(dir, e); !isFile || ig.ignored(full, false) {
			continue
		}
		out = append(out, full)
	}
	return out
}

// DirEntry is one visible entry of a directory listing.
type DirEntry struct {
	Path   string
	IsDir  bool
	IsFile bool
}

// VisibleEntries lists dir's entries that discovery looks at: no dot
// entries, no node_modules, nothing the directory's ignore files exclude;
// symlinks followed.
func VisibleEntries(dir string) []DirEntry {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	ig := newIgnorer(dir)
	ig.enter(dir, entries)
	var out []DirEntry
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		full := filepath.Join(dir, name)
		isDir, isFile := entryKind(dir, e)
		if (!isDir && !isFile) || ig.ignored(full, isDir) {
			continue
		}
		out = append(out, DirEntry{Path: full, IsDir: isDir, IsFile: isFile})
	}
	return out
}

func hasSuffix(name string, suffixes []string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// ApplyPatterns returns the enabled subset of files for a list of filter
// entries: plain glob includes (all files when there are none), minus
// "!glob" matches, plus "+path" exact paths, minus "-path" exact paths.
// Relative patterns resolve against base.
func ApplyPatterns(files, patterns []string, base string) map[string]bool {
	return applyPatterns(files, patterns, base)
}

// EnabledByOverrides applies only the "!", "+" and "-" entries of
// patterns to f (other entries are ignored).
func EnabledByOverrides(f string, patterns []string, base string) bool {
	entries := make([]Entry, 0, len(patterns))
	for _, p := range patterns {
		entries = append(entries, Entry{Entry: p})
	}
	return enabledByOverrides(f, entries, base)
}

// MatchesGlob reports whether a glob pattern names f (its path relative to
// base, its name or its absolute path; for SKILL.md also its directory).
func MatchesGlob(f, pattern, base string) bool { return matchesGlob(f, []string{pattern}, base) }

// MatchesExact reports whether an exact "+"/"-" path names f.
func MatchesExact(f, pattern, base string) bool { return matchesExact(f, []string{pattern}, base) }
