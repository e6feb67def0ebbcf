package packages

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/relay-agent/relay/internal/settings"
)

// registry is a local npm registry: packuments and tarballs of one
// package, versions added while a test runs.
type registry struct {
	t        *testing.T
	name     string
	mu       sync.Mutex
	tarballs map[string][]byte // version -> .tgz
	srv      *httptest.Server
}

func newRegistry(t *testing.T, name string, versions ...string) *registry {
	r := &registry{t: t, name: name, tarballs: map[string][]byte{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	for _, v := range versions {
		r.publish(v)
	}
	return r
}

// publish adds version v: a package.json and an extension file.
func (r *registry) publish(v string) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range map[string]string{
		"package/package.json":       `{"name": "` + r.name + `", "version": "` + v + `"}`,
		"package/extensions/tool.js": "export default function () {}\n",
	} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			r.t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	r.mu.Lock()
	r.tarballs[v] = buf.Bytes()
	r.mu.Unlock()
}

func (r *registry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	path := strings.TrimPrefix(req.URL.Path, "/")
	if v, ok := strings.CutPrefix(path, r.name+"/-/"+r.name+"-"); ok {
		if tgz, found := r.tarballs[strings.TrimSuffix(v, ".tgz")]; found {
			w.Write(tgz)
			return
		}
	}
	if path != r.name {
		http.NotFound(w, req)
		return
	}
	versions := map[string]any{}
	latest := ""
	for v, tgz := range r.tarballs {
		s1, s512 := sha1.Sum(tgz), sha512.Sum512(tgz)
		versions[v] = map[string]any{"name": r.name, "version": v, "dist": map[string]any{
			"tarball":   r.srv.URL + "/" + r.name + "/-/" + r.name + "-" + v + ".tgz",
			"shasum":    hex.EncodeToString(s1[:]),
			"integrity": "sha512-" + base64.StdEncoding.EncodeToString(s512[:]),
		}}
		if latest == "" || newer(v, latest) {
			latest = v
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"name": r.name, "dist-tags": map[string]string{"latest": latest}, "versions": versions})
}

// npm version ranges against a local registry with the real npm: install
// takes the newest version in range, update moves within it, a range that
// changed reinstalls at start-up, a pinned version stays.
func TestNpmVersionRanges(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed (CI installs it)")
	}
	reg := newRegistry(t, "rangepkg", "1.2.0", "1.3.0", "2.0.0")
	t.Setenv("npm_config_registry", reg.srv.URL+"/")
	t.Setenv("npm_config_cache", t.TempDir())
	t.Setenv("npm_config_update_notifier", "false")
	t.Setenv("npm_config_audit", "false")
	t.Setenv("npm_config_fund", "false")
	e := newEnv(t)
	ctx := context.Background()
	m := &Manager{Cwd: e.cwd, AgentDir: e.agent, HomeDir: e.home}
	installed := func() string {
		t.Helper()
		man, err := ReadManifest(filepath.Join(e.agent, "npm", "node_modules", "rangepkg"))
		if err != nil || man == nil {
			t.Fatalf("not installed: %v", err)
		}
		return man.Version
	}
	load := func(source string) *settings.Settings {
		t.Helper()
		writeTree(t, e.agent, map[string]string{"settings.json": `{"packages": ["` + source + `"]}`})
		st, diags := settings.Load(settings.LoadOptions{AgentDir: e.agent})
		if len(diags) > 0 {
			t.Fatal(diags)
		}
		return st
	}

	if err := m.Install(ctx, "npm:rangepkg@^1.2", false); err != nil {
		t.Fatal(err)
	}
	if v := installed(); v != "1.3.0" {
		t.Fatalf("install npm:rangepkg@^1.2 got %s, want 1.3.0 (the newest in range, not 2.0.0)", v)
	}
	reg.publish("1.4.0")
	reg.publish("2.1.0")
	if err := m.Update(ctx, load("npm:rangepkg@^1.2"), ""); err != nil {
		t.Fatal(err)
	}
	if v := installed(); v != "1.4.0" {
		t.Fatalf("update within ^1.2 got %s, want 1.4.0", v)
	}
	// The settings entry moved to ^2: the installed 1.4.0 is out of range
	// and start-up installs the range's newest.
	res := m.Resolve(ctx, load("npm:rangepkg@^2"), ResolveOptions{InstallMissing: true})
	if len(res.Diagnostics) > 0 {
		t.Fatalf("resolve: %v", res.Diagnostics)
	}
	if v := installed(); v != "2.1.0" {
		t.Fatalf("a moved range got %s, want 2.1.0", v)
	}
	if len(res.Enabled(Extensions)) != 1 {
		t.Errorf("extensions of the package: %v", res.Enabled(Extensions))
	}
	// Pinned: installed as written, left alone by update.
	pinned := load("npm:rangepkg@1.2.0")
	m.Resolve(ctx, pinned, ResolveOptions{InstallMissing: true})
	if v := installed(); v != "1.2.0" {
		t.Fatalf("pinned 1.2.0 got %s", v)
	}
	reg.publish("1.2.1")
	if err := m.Update(ctx, pinned, ""); err != nil {
		t.Fatal(err)
	}
	if v := installed(); v != "1.2.0" {
		t.Fatalf("update moved a pinned version to %s", v)
	}
}
