package ext

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

//go:embed host
var hostFiles embed.FS

// JitiVersion is the TypeScript loader relay installs on first use (the
// one the original uses).
const JitiVersion = "2.7.0"

// MinNode is the oldest Node.js major version the host runs on.
const MinNode = 20

// hostScript writes the embedded host into dir/<content hash>/ once and
// returns the path of its entry point. The hash names the directory, so
// two relay versions never share a host and a partial write is never used
// (files land in a temporary directory renamed into place).
func hostScript(cacheDir string) (string, error) {
	h := sha256.New()
	var names []string
	_ = fs.WalkDir(hostFiles, "host", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	for _, n := range names {
		b, _ := hostFiles.ReadFile(n)
		h.Write([]byte(n))
		h.Write(b)
	}
	sum := hex.EncodeToString(h.Sum(nil))[:16]
	dir := filepath.Join(cacheDir, "ext-host", sum)
	entry := filepath.Join(dir, "host.mjs")
	if _, err := os.Stat(entry); err == nil {
		return entry, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("extension host cache: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "tmp-")
	if err != nil {
		return "", fmt.Errorf("extension host cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, n := range names {
		b, _ := hostFiles.ReadFile(n)
		dst := filepath.Join(tmp, strings.TrimPrefix(n, "host/"))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return "", fmt.Errorf("extension host cache: %w", err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another relay wrote the same content first.
		if _, serr := os.Stat(entry); serr == nil {
			return entry, nil
		}
		return "", fmt.Errorf("extension host cache: %w", err)
	}
	return entry, nil
}

// findNode returns node's path, or an error saying what to install.
func findNode(lookPath func(string) (string, error)) (string, error) {
	p, err := lookPath("node")
	if err != nil {
		return "", fmt.Errorf("extensions need Node.js %d or newer, and node was not found on PATH", MinNode)
	}
	return p, nil
}

var nodeVersionRe = regexp.MustCompile(`^v?(\d+)\.`)

// checkNodeVersion runs node --version; only after a failed start (a
// normal start checks inside the host, costing nothing extra).
func checkNodeVersion(node string) error {
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return fmt.Errorf("run %s --version: %w", node, err)
	}
	m := nodeVersionRe.FindSubmatch(bytes.TrimSpace(out))
	if m == nil {
		return fmt.Errorf("unrecognised node version %q", strings.TrimSpace(string(out)))
	}
	if major, _ := strconv.Atoi(string(m[1])); major < MinNode {
		return fmt.Errorf("extensions need Node.js %d or newer; %s is %s", MinNode, node, strings.TrimSpace(string(out)))
	}
	return nil
}

// jitiDir is where relay installs its TypeScript loader: the agent dir's
// ext-host/node_modules/jiti.
func jitiDir(agentDir string) string {
	return filepath.Join(agentDir, "ext-host", "node_modules", "jiti")
}

// ensureJiti installs jiti with npm (the npmCommand setting) into the
// agent dir on first use and returns the path the host requires. It is
// installed into a temporary prefix and moved into place, so an
// interrupted install is never half-used.
func ensureJiti(ctx context.Context, agentDir string, npm []string) (string, error) {
	dir := jitiDir(agentDir)
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err == nil {
		return dir, nil
	}
	if len(npm) == 0 {
		npm = []string{"npm"}
	}
	if _, err := exec.LookPath(npm[0]); err != nil {
		return "", fmt.Errorf("extensions need npm to install their TypeScript loader (jiti), and %s was not found on PATH (setting npmCommand)", npm[0])
	}
	base := filepath.Join(agentDir, "ext-host")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", fmt.Errorf("install jiti: %w", err)
	}
	tmp, err := os.MkdirTemp(base, "install-")
	if err != nil {
		return "", fmt.Errorf("install jiti: %w", err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	args := append(append([]string(nil), npm[1:]...), "install", "--prefix", tmp, "--no-save", "--no-audit", "--no-fund", "--loglevel=error", "jiti@"+JitiVersion)
	cmd := exec.CommandContext(ctx, npm[0], args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("install jiti with %s: %w: %s", strings.Join(npm, " "), err, lastLines(strings.TrimSpace(out.String()), 5))
	}
	if err := os.MkdirAll(filepath.Join(base, "node_modules"), 0o755); err != nil {
		return "", fmt.Errorf("install jiti: %w", err)
	}
	if err := os.Rename(filepath.Join(tmp, "node_modules", "jiti"), dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "package.json")); serr == nil {
			return dir, nil
		}
		return "", fmt.Errorf("install jiti: %w", err)
	}
	return dir, nil
}
