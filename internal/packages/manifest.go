package packages

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/fsx"
)

// Manifest is the resource part of a package.json: the "relay" key, or
// "pi" for packages written for relay's parent (the same fields).
type Manifest struct {
	Name    string
	Version string
	// Lists holds extensions, skills, prompts and themes as declared; a
	// kind absent from the key is absent from the map.
	Lists map[Kind][]string
	// HasKey is true when the package.json has a "relay" or "pi" object.
	HasKey bool
	// HostDeps names host-provided packages wrongly listed in
	// dependencies (packages.md "Declare dependencies").
	HostDeps []string
}

// hostPackages are provided by relay's extension host; a package must
// declare them as peerDependencies, never bundle them.
var hostPackages = []string{
	"@relay-harness/ai", "@relay-harness/agent-core", "@relay-harness/coding-agent", "@relay-harness/tui", "typebox",
	"@mariozechner/pi-ai", "@mariozechner/pi-agent-core", "@mariozechner/pi-coding-agent", "@mariozechner/pi-tui",
}

// ReadManifest reads dir/package.json. A missing file is (nil, nil); an
// unreadable or malformed one is an error naming the file.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, "package.json")
	data, err := fsx.ReadFile(path, config.MaxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var raw struct {
		Name         string                     `json:"name"`
		Version      string                     `json:"version"`
		Relay        json.RawMessage            `json:"relay"`
		Pi           json.RawMessage            `json:"pi"`
		Dependencies map[string]json.RawMessage `json:"dependencies"`
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(string(data), "\ufeff")), &raw); err != nil {
		return nil, fmt.Errorf("malformed %s: %w", path, err)
	}
	m := &Manifest{Name: raw.Name, Version: raw.Version, Lists: map[Kind][]string{}}
	for _, h := range hostPackages {
		if _, ok := raw.Dependencies[h]; ok {
			m.HostDeps = append(m.HostDeps, h)
		}
	}
	key, keyName := raw.Relay, "relay"
	if len(key) == 0 || string(key) == "null" {
		key, keyName = raw.Pi, "pi"
	}
	if len(key) == 0 || string(key) == "null" {
		return m, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(key, &obj); err != nil {
		return nil, fmt.Errorf("malformed %s: %q must be an object", path, keyName)
	}
	m.HasKey = true
	for _, k := range Kinds {
		v, ok := obj[k.String()]
		if !ok || string(v) == "null" {
			continue
		}
		var list []string
		if err := json.Unmarshal(v, &list); err != nil {
			return nil, fmt.Errorf("malformed %s: %s.%s must be an array of strings", path, keyName, k)
		}
		m.Lists[k] = list
	}
	return m, nil
}
