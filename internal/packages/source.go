package packages

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/relay-agent/relay/internal/config"
)

// Type is the kind of a package source.
type Type string

const (
	TypeNpm   Type = "npm"
	TypeGit   Type = "git"
	TypeLocal Type = "local"
)

// Source is a parsed package source string (packages.md "Choose a source").
type Source struct {
	Raw  string
	Type Type
	// npm: Spec is what follows "npm:"; Name the package name; Version
	// the part after the name's "@" ("" = latest).
	Spec, Name, Version string
	// git: Repo is the clone URL (without the ref), Host and Path name the
	// repository (Path without a trailing .git), Ref the "@ref" suffix.
	Repo, Host, Path, Ref string
	// Local is the path as written (resolved against a base directory by
	// LocalPath).
	Local string
}

// exactVersion is a full semver version: what npm treats as one version
// rather than a range.
var exactVersion = regexp.MustCompile(`^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$`)

// Pinned reports a source that update leaves alone: an npm source with an
// exact version, or a git source with a ref (a tag or commit; the checkout
// is still reconciled to it).
func (s Source) Pinned() bool {
	switch s.Type {
	case TypeNpm:
		return exactVersion.MatchString(s.Version)
	case TypeGit:
		return s.Ref != ""
	}
	return false
}

// Display is a short name for messages: the npm name, host/path for git,
// the path for local sources.
func (s Source) Display() string {
	switch s.Type {
	case TypeNpm:
		return s.Name
	case TypeGit:
		return s.Host + "/" + s.Path
	}
	return s.Local
}

// LocalPath resolves a local source against base ("~" expanded).
func (s Source) LocalPath(base string) string {
	return config.ResolvePath(base, strings.TrimSpace(s.Local))
}

// Identity is what makes two declarations the same package (packages.md
// "Understand scope and identity"): the npm name, the git host and path
// without the ref (so SSH and HTTPS URLs of one repository match), or the
// resolved absolute path of a local source (relative to base).
func (s Source) Identity(base string) string {
	switch s.Type {
	case TypeNpm:
		return "npm:" + s.Name
	case TypeGit:
		return "git:" + s.Host + "/" + s.Path
	}
	return "local:" + s.LocalPath(base)
}

// ParseSource parses "npm:name[@version]", "git:host/path[@ref]",
// "git:git@host:path[@ref]", a git URL (https, http, ssh, git, file, or
// scp-like git@host:path) or a local path. Only an empty source or a git
// source without a repository path is an error.
func ParseSource(raw string) (Source, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return Source{}, fmt.Errorf("empty package source")
	}
	if spec, ok := strings.CutPrefix(s, "npm:"); ok {
		spec = strings.TrimSpace(spec)
		name, version := splitNpmSpec(spec)
		if name == "" {
			return Source{}, fmt.Errorf("invalid npm source %q: missing package name", raw)
		}
		return Source{Raw: raw, Type: TypeNpm, Spec: spec, Name: name, Version: version}, nil
	}
	if rest, ok := strings.CutPrefix(s, "git:"); ok {
		return parseGit(raw, strings.TrimSpace(rest), true)
	}
	if isGitURL(s) {
		return parseGit(raw, s, false)
	}
	return Source{Raw: raw, Type: TypeLocal, Local: s}, nil
}

var scpLike = regexp.MustCompile(`^[A-Za-z0-9._-]+@([^:/]+):(.+)$`)

func isGitURL(s string) bool {
	for _, p := range []string{"https://", "http://", "ssh://", "git://", "file://", "git+ssh://"} {
		if strings.HasPrefix(strings.ToLower(s), p) {
			return true
		}
	}
	return scpLike.MatchString(s)
}

// splitNpmSpec splits "name@version" and "@scope/name@version" at the
// first "@" after the scope (a file: spec after it may hold "@" itself).
func splitNpmSpec(spec string) (name, version string) {
	start := 0
	if strings.HasPrefix(spec, "@") {
		start = 1
	}
	i := strings.Index(spec[start:], "@")
	if i < 0 {
		return spec, ""
	}
	return spec[:start+i], spec[start+i+1:]
}

// splitRef cuts "@ref" off the last path segment (an "@" before the last
// "/" belongs to a user name, as in ssh://git@host/path).
func splitRef(s string) (repo, ref string) {
	at := strings.LastIndex(s, "@")
	if at < 0 || at < strings.LastIndex(s, "/") || at < strings.LastIndex(s, ":") {
		return s, ""
	}
	return s[:at], s[at+1:]
}

func parseGit(raw, s string, shorthand bool) (Source, error) {
	src := Source{Raw: raw, Type: TypeGit}
	bad := func(why string) (Source, error) {
		return Source{}, fmt.Errorf("invalid git source %q: %s", raw, why)
	}
	if m := scpLike.FindStringSubmatch(s); m != nil && !strings.Contains(s, "://") {
		path, ref := splitRef(m[2])
		src.Host, src.Path, src.Ref = m[1], cleanRepoPath(path), ref
		src.Repo = strings.TrimSuffix(s, "@"+ref)
		if ref == "" {
			src.Repo = s
		}
	} else if strings.Contains(s, "://") {
		repo, ref := splitRef(s)
		u, err := url.Parse(repo)
		if err != nil {
			return bad(err.Error())
		}
		src.Repo, src.Ref = repo, ref
		src.Host, src.Path = u.Hostname(), cleanRepoPath(u.Path)
		if u.Scheme == "file" {
			src.Host = "file"
		}
	} else if shorthand {
		repo, ref := splitRef(s)
		host, path, _ := strings.Cut(repo, "/")
		src.Host, src.Path, src.Ref = host, cleanRepoPath(path), ref
		src.Repo = "https://" + repo
	} else {
		return bad("not a git URL")
	}
	if src.Path == "" || src.Host == "" {
		return bad("missing host or repository path")
	}
	if strings.Contains(src.Ref, " ") {
		return bad("ref must not contain spaces")
	}
	for _, seg := range strings.Split(src.Host+"/"+src.Path, "/") {
		if seg == ".." {
			return bad("path must not contain ..")
		}
	}
	return src, nil
}

func cleanRepoPath(p string) string {
	p = strings.Trim(filepath.ToSlash(p), "/")
	return strings.TrimSuffix(p, ".git")
}
