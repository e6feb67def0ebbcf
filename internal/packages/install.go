package packages

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/config"
)

// Runner runs npm and git. The default runs the programs; tests use it to
// see which commands an operation would run.
type Runner interface {
	// Run runs name with args in dir and returns its stdout; a non-zero
	// exit is an error carrying the end of its output.
	Run(ctx context.Context, dir, name string, args ...string) (string, error)
}

// Manager installs, removes, updates and resolves packages for one working
// directory and agent directory.
type Manager struct {
	Cwd, AgentDir string
	// HomeDir holds ~/.agents/skills; "" = the user's home.
	HomeDir string
	// NpmCommand is the npmCommand setting (nil = npm).
	NpmCommand []string
	// Offline skips every automatic install and update (RELAY_OFFLINE).
	Offline bool
	// ProjectTrusted allows project scope (.relay/npm, .relay/git and the
	// project's conventional directories).
	ProjectTrusted bool
	// Runner runs npm and git; nil runs the programs.
	Runner Runner
	// Progress receives "Installing <source>..." lines; nil = none.
	Progress io.Writer
}

// networkTimeout bounds the commands that only ask (npm view, git
// ls-remote); installs and clones run until done or cancelled.
const networkTimeout = 10 * time.Second

// maxCommandOutput bounds what a failed command's error carries.
const maxCommandOutput = 4 << 10

type execRunner struct{}

func (execRunner) Run(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	// Never wait for a credential prompt: a missing repository must fail.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "npm_config_yes=true")
	var stdout bytes.Buffer
	stderr := &tailBuffer{max: maxCommandOutput}
	cmd.Stdout, cmd.Stderr = &limitedBuffer{buf: &stdout, max: 1 << 20}, stderr
	err := cmd.Run()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("%s not found on PATH", name)
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(tail(stdout.String(), maxCommandOutput))
		}
		if msg != "" {
			return "", fmt.Errorf("%s %s failed: %w: %s", name, strings.Join(args, " "), err, msg)
		}
		return "", fmt.Errorf("%s %s failed: %w", name, strings.Join(args, " "), err)
	}
	return stdout.String(), nil
}

// limitedBuffer keeps the first max bytes.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		if len(p) > room {
			l.buf.Write(p[:room])
		} else {
			l.buf.Write(p)
		}
	}
	return len(p), nil
}

// tailBuffer keeps the last max bytes.
type tailBuffer struct {
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func (m *Manager) runner() Runner {
	if m.Runner != nil {
		return m.Runner
	}
	return execRunner{}
}

func (m *Manager) progress(format string, args ...any) {
	if m.Progress != nil {
		fmt.Fprintf(m.Progress, format+"\n", args...)
	}
}

// npm runs the npmCommand with args.
func (m *Manager) npm(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := m.NpmCommand
	if len(cmd) == 0 {
		cmd = []string{"npm"}
	}
	if cmd[0] == "" {
		return "", fmt.Errorf("invalid npmCommand: the first entry must be a command")
	}
	return m.runner().Run(ctx, dir, cmd[0], append(append([]string{}, cmd[1:]...), args...)...)
}

// managerName is the package manager behind npmCommand: npm, pnpm or bun
// (a wrapper's "--" or its arguments name it).
func (m *Manager) managerName() string {
	cmd := m.NpmCommand
	if len(cmd) == 0 {
		return "npm"
	}
	base := func(s string) string {
		return strings.TrimSuffix(strings.TrimSuffix(filepath.Base(s), ".cmd"), ".exe")
	}
	for i, a := range cmd {
		if a == "--" && i+1 < len(cmd) {
			return base(cmd[i+1])
		}
	}
	for _, a := range cmd {
		switch b := base(a); b {
		case "npm", "pnpm", "bun":
			return b
		}
	}
	return base(cmd[0])
}

// installArgs install specs into root without the host's peers (relay's
// extension host provides them).
func (m *Manager) installArgs(root string, specs ...string) []string {
	switch m.managerName() {
	case "bun":
		return append(append([]string{"install"}, specs...), "--cwd", root, "--omit=peer")
	case "pnpm":
		return append(append([]string{"install"}, specs...), "--prefix", root, "--config.auto-install-peers=false",
			"--config.strict-peer-dependencies=false", "--config.strict-dep-builds=false")
	}
	return append(append([]string{"install"}, specs...), "--prefix", root, "--legacy-peer-deps")
}

// dependencyArgs install a cloned package's own dependencies.
func (m *Manager) dependencyArgs() []string {
	switch m.managerName() {
	case "bun":
		return []string{"install", "--omit=dev", "--omit=peer"}
	case "pnpm":
		return []string{"install", "--prod", "--config.auto-install-peers=false", "--config.strict-peer-dependencies=false",
			"--config.strict-dep-builds=false"}
	case "npm":
		return []string{"install", "--omit=dev", "--legacy-peer-deps"}
	}
	return []string{"install"}
}

// ErrProjectNotTrusted refuses project package storage of an untrusted
// project.
var ErrProjectNotTrusted = errors.New("project is not trusted; refusing to use project package storage (use --approve)")

// baseDir is where a scope's relative local sources resolve.
func (m *Manager) baseDir(scope string) string {
	switch scope {
	case ScopeProject:
		return config.Project{Cwd: m.Cwd}.Dir()
	case ScopeUser:
		return m.AgentDir
	}
	return m.Cwd
}

func (m *Manager) npmRoot(scope string) string {
	switch scope {
	case ScopeProject:
		return filepath.Join(config.Project{Cwd: m.Cwd}.Dir(), "npm")
	case ScopeTemporary:
		return filepath.Join(m.AgentDir, "tmp", "extensions", "npm")
	}
	return filepath.Join(m.AgentDir, "npm")
}

func (m *Manager) gitRoot(scope string) string {
	switch scope {
	case ScopeProject:
		return filepath.Join(config.Project{Cwd: m.Cwd}.Dir(), "git")
	case ScopeTemporary:
		return filepath.Join(m.AgentDir, "tmp", "extensions", "git")
	}
	return filepath.Join(m.AgentDir, "git")
}

// InstallDir is where a source of scope lives once installed: npm packages
// under <root>/npm/node_modules/<name>, git checkouts under
// <root>/git/<host>/<path> (the root being the agent directory or the
// project's .relay), local sources where they are. Temporary (-e) git
// checkouts get a directory per ref.
func (m *Manager) InstallDir(src Source, scope string) (string, error) {
	var root string
	var parts []string
	switch src.Type {
	case TypeNpm:
		root, parts = m.npmRoot(scope), []string{"node_modules", src.Name}
	case TypeGit:
		root, parts = m.gitRoot(scope), []string{src.Host, src.Path}
		if scope == ScopeTemporary {
			sum := sha256.Sum256([]byte(src.Host + "/" + src.Path + "@" + src.Ref))
			parts = []string{hex.EncodeToString(sum[:4]), src.Host, src.Path}
		}
	default:
		return src.LocalPath(m.baseDir(scope)), nil
	}
	p := filepath.Join(append([]string{root}, parts...)...)
	if rel, err := filepath.Rel(root, p); err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("refusing to use a path outside the package root: %s", p)
	}
	return p, nil
}

// installedDir returns the directory of an installed source and whether it
// is there (an npm install must also match a pinned version or be in the
// range of its spec).
func (m *Manager) installedDir(src Source, scope string) (string, bool) {
	dir, err := m.InstallDir(src, scope)
	if err != nil {
		return dir, false
	}
	if _, err := os.Stat(dir); err != nil {
		return dir, false
	}
	if src.Type == TypeNpm && src.Pinned() {
		man, err := ReadManifest(dir)
		if err != nil || man == nil || strings.TrimPrefix(man.Version, "v") != strings.TrimPrefix(src.Version, "v") {
			return dir, false
		}
	}
	if src.Type == TypeNpm && src.Version != "" && !src.Pinned() {
		// A range: the installed version must be in it (the settings
		// entry may have moved from ^1 to ^2). A dist-tag cannot be
		// checked without the registry.
		man, err := ReadManifest(dir)
		if err != nil || man == nil {
			return dir, false
		}
		if ok, known := satisfies(man.Version, src.Version); known && !ok {
			return dir, false
		}
	}
	return dir, true
}

func (m *Manager) install(ctx context.Context, src Source, scope string) error {
	if scope == ScopeProject && !m.ProjectTrusted {
		return ErrProjectNotTrusted
	}
	m.progress("Installing %s...", src.Raw)
	switch src.Type {
	case TypeNpm:
		root := m.npmRoot(scope)
		if err := ensureNpmProject(root); err != nil {
			return err
		}
		if _, err := m.npm(ctx, root, m.installArgs(root, src.Spec)...); err != nil {
			return err
		}
		if _, ok := m.installedDir(src, scope); !ok {
			dir, _ := m.InstallDir(src, scope)
			return fmt.Errorf("npm did not install %s at %s (is the package name right?)", src.Name, dir)
		}
		return nil
	case TypeGit:
		return m.installGit(ctx, src, scope)
	}
	path := src.LocalPath(m.baseDir(ScopeTemporary))
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("path does not exist: %s", path)
	}
	return nil
}

// ensureNpmProject makes root an npm project of its own, ignored by git.
func ensureNpmProject(root string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", root, err)
	}
	if err := ensureGitIgnore(root); err != nil {
		return err
	}
	pj := filepath.Join(root, "package.json")
	if _, err := os.Stat(pj); err == nil {
		return nil
	}
	if err := os.WriteFile(pj, []byte("{\n  \"name\": \"relay-extensions\",\n  \"private\": true\n}\n"), 0o644); err != nil {
		return fmt.Errorf("create %s: %w", pj, err)
	}
	return nil
}

func ensureGitIgnore(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	p := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	if err := os.WriteFile(p, []byte("*\n!.gitignore\n"), 0o644); err != nil {
		return fmt.Errorf("create %s: %w", p, err)
	}
	return nil
}

func (m *Manager) git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := m.runner().Run(ctx, dir, "git", args...)
	return strings.TrimSpace(out), err
}

func (m *Manager) installGit(ctx context.Context, src Source, scope string) error {
	dir, err := m.InstallDir(src, scope)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dir); err == nil {
		return m.updateGit(ctx, src, scope)
	}
	root := m.gitRoot(scope)
	if scope != ScopeTemporary {
		if err := ensureGitIgnore(root); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(dir), err)
	}
	fail := func(err error) error {
		_ = os.RemoveAll(dir)
		pruneEmptyParents(dir, root)
		return err
	}
	if _, err := m.git(ctx, "", "clone", src.Repo, dir); err != nil {
		return fail(err)
	}
	if src.Ref != "" {
		if _, err := m.git(ctx, dir, "checkout", src.Ref); err != nil {
			return fail(fmt.Errorf("ref %q not found in %s: %w", src.Ref, src.Repo, err))
		}
	}
	if err := m.installDeps(ctx, dir); err != nil {
		return fail(err)
	}
	return nil
}

// installDeps installs a checkout's dependencies when it has a
// package.json.
func (m *Manager) installDeps(ctx context.Context, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		return nil
	}
	_, err := m.npm(ctx, dir, m.dependencyArgs()...)
	return err
}

// updateGit reconciles a checkout with its ref (fetched), or with its
// upstream branch, and reinstalls dependencies when it moved.
func (m *Manager) updateGit(ctx context.Context, src Source, scope string) error {
	dir, err := m.InstallDir(src, scope)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dir); err != nil {
		return m.installGit(ctx, src, scope)
	}
	target := "FETCH_HEAD"
	if src.Ref != "" {
		if _, err := m.git(ctx, dir, "fetch", "origin", src.Ref); err != nil {
			return fmt.Errorf("ref %q not found in %s: %w", src.Ref, src.Repo, err)
		}
	} else {
		branch := ""
		if up, err := m.git(ctx, dir, "rev-parse", "--abbrev-ref", "@{upstream}"); err == nil {
			branch = strings.TrimPrefix(up, "origin/")
		}
		if branch != "" {
			if _, err := m.git(ctx, dir, "fetch", "--prune", "--no-tags", "origin", "+refs/heads/"+branch+":refs/remotes/origin/"+branch); err != nil {
				return err
			}
			target = "origin/" + branch
		} else if _, err := m.git(ctx, dir, "fetch", "--prune", "--no-tags", "origin", "HEAD"); err != nil {
			return err
		}
	}
	head, err := m.git(ctx, dir, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	want, err := m.git(ctx, dir, "rev-parse", target+"^{commit}")
	if err != nil {
		return err
	}
	if head == want {
		return nil
	}
	if _, err := m.git(ctx, dir, "reset", "--hard", want); err != nil {
		return err
	}
	if _, err := m.git(ctx, dir, "clean", "-fdx"); err != nil {
		return err
	}
	return m.installDeps(ctx, dir)
}

// pruneEmptyParents removes the empty directories between dir and root.
func pruneEmptyParents(dir, root string) {
	root = filepath.Clean(root)
	for cur := filepath.Dir(dir); strings.HasPrefix(cur, root+string(filepath.Separator)); cur = filepath.Dir(cur) {
		entries, err := os.ReadDir(cur)
		if err != nil || len(entries) > 0 || os.Remove(cur) != nil {
			return
		}
	}
}
