package keymap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/fsx"
)

// FileName is the keybindings file inside the agent directory.
const FileName = "keybindings.json"

// Keymap is the active set of bindings: defaults for the platform with the
// user's overrides applied. It is immutable after construction, so the UI
// can share it; /reload builds a new one.
type Keymap struct {
	platform Platform
	actions  []Action
	index    map[string]int
	bound    [][]Key
	user     []bool // the action's keys come from keybindings.json
}

// New returns the default keymap for a platform.
func New(p Platform) *Keymap {
	km := &Keymap{platform: p, actions: actionTable(), index: map[string]int{}}
	km.bound = make([][]Key, len(km.actions))
	km.user = make([]bool, len(km.actions))
	for i, a := range km.actions {
		km.index[a.ID] = i
		for _, s := range a.defaults(p) {
			km.bound[i] = append(km.bound[i], MustParse(s))
		}
	}
	return km
}

// Actions lists every action in documentation order.
func (km *Keymap) Actions() []Action { return km.actions }

// Platform returns the platform whose defaults the keymap uses.
func (km *Keymap) Platform() Platform { return km.platform }

// Keys returns the keys bound to an action (nil when unbound or unknown).
func (km *Keymap) Keys(action ID) []Key {
	i, ok := km.index[action.s]
	if !ok {
		return nil
	}
	return km.bound[i]
}

// Matches reports whether the key press triggers the action.
func (km *Keymap) Matches(action ID, msg tea.KeyPressMsg) bool {
	i, ok := km.index[action.s]
	if !ok {
		return false
	}
	ev := msg.Key()
	for _, k := range km.bound[i] {
		if k.MatchesEvent(ev) {
			return true
		}
	}
	return false
}

// Label is the display text for an action's keys ("ctrl+l", "up/ctrl+p"),
// empty when the action is unbound.
func (km *Keymap) Label(action ID) string {
	ks := km.Keys(action)
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = k.String()
	}
	return strings.Join(parts, "/")
}

// Load reads <agentDir>/keybindings.json. A missing file gives the defaults.
// Problems with single entries (unknown action, invalid key) are returned as
// warnings naming the entry; the rest of the file still applies. Only an
// unreadable or malformed file is an error, and then the defaults are used.
func Load(agentDir string, p Platform) (*Keymap, []string, error) {
	km := New(p)
	path := filepath.Join(agentDir, FileName)
	data, err := fsx.ReadFile(path, config.MaxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return km, nil, nil
	}
	if err != nil {
		return km, nil, fmt.Errorf("read keybindings: %w", err)
	}
	warnings, err := km.apply(data)
	if err != nil {
		return New(p), nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return km, warnings, nil
}

// Apply returns a copy of the default keymap for p with the JSON overrides
// applied; see Load for the error contract.
func Apply(p Platform, data []byte) (*Keymap, []string, error) {
	km := New(p)
	w, err := km.apply(data)
	if err != nil {
		return New(p), nil, err
	}
	return km, w, nil
}

func (km *Keymap) apply(data []byte) ([]string, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(raw))
	for id := range raw {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var warnings []string
	for _, id := range ids {
		i, ok := km.index[id]
		if !ok {
			warnings = append(warnings, fmt.Sprintf("keybindings.json: unknown action %q ignored", id))
			continue
		}
		var list []string
		var one string
		if err := json.Unmarshal(raw[id], &one); err == nil {
			list = []string{one}
		} else if err := json.Unmarshal(raw[id], &list); err != nil {
			warnings = append(warnings, fmt.Sprintf("keybindings.json: %s: value must be a key or a list of keys", id))
			continue
		}
		var ks []Key
		bad := false
		for _, s := range list {
			k, err := ParseKey(s)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("keybindings.json: %s: %v; keeping its previous keys", id, err))
				bad = true
				break
			}
			ks = append(ks, k)
		}
		if bad {
			continue
		}
		km.bound[i] = ks
		km.user[i] = true
	}
	warnings = append(warnings, km.resolveConflicts()...)
	return warnings, nil
}

// resolveConflicts applies the documented rule that a configured value wins:
// a key the user assigned to one action is taken away from the defaults of
// other actions active on the same screen. Two user assignments of one key
// in scopes active together are reported; the UI then applies its documented
// precedence (history actions before application actions, fullscreen
// actions before editor actions, otherwise the first in table order).
func (km *Keymap) resolveConflicts() []string {
	var warnings []string
	for i, a := range km.actions {
		if !km.user[i] {
			continue
		}
		for _, k := range km.bound[i] {
			for j, b := range km.actions {
				if i == j || !activeTogether(a.Scope, b.Scope) {
					continue
				}
				if km.user[j] {
					if j > i && containsKey(km.bound[j], k) {
						warnings = append(warnings, fmt.Sprintf("keybindings.json: %s is bound to both %s and %s", k, a.ID, b.ID))
					}
					continue
				}
				// A picker's own action checks first, so the shared list
				// keys (tui.select.*) keep their defaults for other pickers.
				if b.Scope == ScopeSelect && a.Scope != ScopeSelect {
					continue
				}
				if containsKey(km.bound[j], k) {
					km.bound[j] = removeKey(km.bound[j], k)
				}
			}
		}
	}
	return warnings
}

func containsKey(ks []Key, k Key) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

func removeKey(ks []Key, k Key) []Key {
	out := make([]Key, 0, len(ks))
	for _, x := range ks {
		if x != k {
			out = append(out, x)
		}
	}
	return out
}

// HotkeyRow is one line of the /hotkeys listing.
type HotkeyRow struct {
	Section     string
	Action      string
	Keys        string
	Description string
}

// Hotkeys lists the bound actions in documentation order.
func (km *Keymap) Hotkeys() []HotkeyRow {
	var rows []HotkeyRow
	for i, a := range km.actions {
		if len(km.bound[i]) == 0 {
			continue
		}
		rows = append(rows, HotkeyRow{Section: a.Section, Action: a.ID, Keys: km.Label(ID{a.ID}), Description: a.Description})
	}
	return rows
}

// HotkeysText renders the /hotkeys listing as plain aligned text.
func (km *Keymap) HotkeysText() string {
	rows := km.Hotkeys()
	w := 0
	for _, r := range rows {
		w = max(w, len(r.Keys))
	}
	var b strings.Builder
	section := ""
	for _, r := range rows {
		if r.Section != section {
			if section != "" {
				b.WriteByte('\n')
			}
			section = r.Section
			b.WriteString(section)
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "  %-*s  %s\n", w, r.Keys, r.Description)
	}
	return b.String()
}

// DetectPlatform reports the running platform; WSL is recognised by its
// environment variables (wslEnv: config.Terminal.WSL) or the kernel
// release string.
func DetectPlatform(wslEnv bool) Platform {
	if runtime.GOOS == "windows" {
		return Windows
	}
	if runtime.GOOS == "linux" {
		if wslEnv {
			return WSL
		}
		if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil &&
			strings.Contains(strings.ToLower(string(b)), "microsoft") {
			return WSL
		}
	}
	return Unix
}
