package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/fsx"
)

// NeedsTrust reports whether cwd has project resources that wait for a
// trust decision (upstream-spec-core.md §7.3): an entry of
// config.TrustRequiringProjectEntries under <cwd>/.relay, or .agents/skills
// in cwd or any ancestor, except the user's own ~/.agents/skills. A bare
// .relay needs none, and such a project counts as trusted.
func NeedsTrust(cwd string) bool {
	dir := config.Canonical(cwd)
	proj := config.Project{Cwd: dir}.Dir()
	for _, e := range config.TrustRequiringProjectEntries() {
		if exists(filepath.Join(proj, e)) {
			return true
		}
	}
	userSkills := ""
	if home, err := config.HomeDir(); err == nil {
		userSkills = filepath.Join(config.Canonical(home), ".agents", "skills")
	}
	for {
		s := filepath.Join(dir, ".agents", "skills")
		if s != userSkills && exists(s) {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TrustStore is <agentDir>/trust.json: {"<canonical dir>": true|false}.
type TrustStore struct{ Path string }

// NewTrustStore returns the store of agentDir.
func NewTrustStore(agentDir string) *TrustStore {
	return &TrustStore{Path: config.Agent{Dir: agentDir}.Trust()}
}

// TrustEntry is a saved decision.
type TrustEntry struct {
	Dir     string
	Trusted bool
}

// TrustUpdate saves (Decision non-nil) or deletes (nil) the decision of Dir.
type TrustUpdate struct {
	Dir      string
	Decision *bool
}

func (s *TrustStore) read() (map[string]bool, error) {
	data, err := fsx.ReadFile(s.Path, config.MaxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read trust store %s: %w", s.Path, unwrapPath(err))
	}
	out := map[string]bool{}
	if strings.TrimSpace(strings.TrimPrefix(string(data), "\ufeff")) == "" {
		return out, nil
	}
	v, err := parseOrdered(data)
	if err != nil {
		return nil, fmt.Errorf("read trust store %s: %w", s.Path, err)
	}
	o, ok := v.(*Object)
	if !ok {
		return nil, fmt.Errorf("invalid trust store %s: expected an object", s.Path)
	}
	for _, k := range o.Keys() {
		switch x, _ := o.Get(k); x := x.(type) {
		case bool:
			out[k] = x
		case nil:
		default:
			return nil, fmt.Errorf("invalid trust store %s: value for %s must be true, false, or null", s.Path, strconv.Quote(k))
		}
	}
	return out, nil
}

// Lookup returns the nearest saved decision for cwd or one of its
// ancestors.
func (s *TrustStore) Lookup(cwd string) (TrustEntry, bool, error) {
	var entry TrustEntry
	var found bool
	err := withFileLock(s.Path, func() error {
		data, err := s.read()
		if err != nil {
			return err
		}
		for dir := config.Canonical(cwd); ; {
			if v, ok := data[dir]; ok {
				entry, found = TrustEntry{Dir: dir, Trusted: v}, true
				return nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return nil
			}
			dir = parent
		}
	})
	return entry, found, err
}

// Set applies updates under the lock and rewrites the file with sorted
// keys. Directories are canonicalized. An unreadable file is not replaced.
func (s *TrustStore) Set(updates ...TrustUpdate) error {
	return withFileLock(s.Path, func() error {
		data, err := s.read()
		if err != nil {
			return err
		}
		for _, u := range updates {
			k := config.Canonical(u.Dir)
			if u.Decision == nil {
				delete(data, k)
			} else {
				data[k] = *u.Decision
			}
		}
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := NewObject()
		for _, k := range keys {
			o.Put(k, data[k])
		}
		out, err := marshalIndent(o)
		if err != nil {
			return err
		}
		return writeAtomic(s.Path, append(out, '\n'))
	})
}

// TrustSource says what decided.
type TrustSource string

const (
	TrustNotNeeded TrustSource = "not-needed" // no protected resources
	TrustFromFlag  TrustSource = "flag"       // --approve / --no-approve
	TrustFromHook  TrustSource = "extension"  // a project_trust handler
	TrustFromSaved TrustSource = "saved"      // trust.json
	TrustDefault   TrustSource = "default"    // defaultProjectTrust
)

// TrustInput is everything a trust decision depends on.
type TrustInput struct {
	Cwd string
	// Flag is true for --approve, false for --no-approve, nil for neither.
	Flag *bool
	// Hook asks user and CLI extensions handling project_trust; the first
	// yes or no wins (decided true). Nil when there are none.
	Hook func() (trusted, decided bool)
	// Store holds saved decisions; nil skips them.
	Store *TrustStore
	// Default is the agent-directory defaultProjectTrust.
	Default ProjectTrust
	// Interactive is true only in the TUI, which can show the prompt.
	Interactive bool
}

// TrustDecision is the outcome. When Prompt is true the caller shows the
// trust prompt (TrustOptions) and Trusted is false until it answers.
type TrustDecision struct {
	Trusted  bool
	Prompt   bool
	Source   TrustSource
	SavedDir string // the trust.json entry that decided
	// StoreErr reports an unreadable trust.json; the decision then falls
	// through to defaultProjectTrust.
	StoreErr error
}

// DecideTrust applies the order of §7.3: flag, extensions, the nearest saved
// decision, then defaultProjectTrust. Non-interactive modes cannot ask:
// "always" loads, "ask" and "never" skip.
func DecideTrust(in TrustInput) TrustDecision {
	if in.Flag != nil {
		return TrustDecision{Trusted: *in.Flag, Source: TrustFromFlag}
	}
	if !NeedsTrust(in.Cwd) {
		return TrustDecision{Trusted: true, Source: TrustNotNeeded}
	}
	if in.Hook != nil {
		if t, ok := in.Hook(); ok {
			return TrustDecision{Trusted: t, Source: TrustFromHook}
		}
	}
	var d TrustDecision
	if in.Store != nil {
		e, found, err := in.Store.Lookup(in.Cwd)
		if err != nil {
			d.StoreErr = err
		} else if found {
			return TrustDecision{Trusted: e.Trusted, Source: TrustFromSaved, SavedDir: e.Dir}
		}
	}
	d.Source = TrustDefault
	switch in.Default {
	case TrustAlways:
		d.Trusted = true
	case TrustNever:
	default:
		d.Prompt = in.Interactive
	}
	return d
}

// TrustOption is one answer of the interactive trust prompt.
type TrustOption struct {
	Label   string
	Trusted bool
	Updates []TrustUpdate // to save with TrustStore.Set; none = this session only
}

// TrustOptions lists the prompt's answers: trust, trust the parent folder
// (saved on the parent, replacing cwd's own entry), optionally trust for
// this session only, do not trust, optionally do not trust for this session.
func TrustOptions(cwd string, sessionOnly bool) []TrustOption {
	dir := config.Canonical(cwd)
	yes, no := true, false
	opts := []TrustOption{{Label: "Trust", Trusted: true, Updates: []TrustUpdate{{Dir: dir, Decision: &yes}}}}
	if parent := filepath.Dir(dir); parent != dir {
		opts = append(opts, TrustOption{
			Label:   "Trust parent folder (" + parent + ")",
			Trusted: true,
			Updates: []TrustUpdate{{Dir: parent, Decision: &yes}, {Dir: dir}},
		})
	}
	if sessionOnly {
		opts = append(opts, TrustOption{Label: "Trust (this session only)", Trusted: true})
	}
	opts = append(opts, TrustOption{Label: "Do not trust", Updates: []TrustUpdate{{Dir: dir, Decision: &no}}})
	if sessionOnly {
		opts = append(opts, TrustOption{Label: "Do not trust (this session only)"})
	}
	return opts
}
