// Package mcp connects relay to Model Context Protocol servers (stdio and
// streamable HTTP, through the official Go SDK) and turns their tools and
// resources into tool.Tool values: mcp.json loading and editing, exposure
// modes, background connection, OAuth sign-in, the server log and the
// `relay mcp` subcommands (upstream-spec-extras.md §6, docs/mcp.md).
package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"regexp"
	"strings"

	"github.com/relay-agent/relay/internal/tool"
)

// Exposure says how a server's tools reach the model. It is the tool
// package's type, so codemode and tool_search read an MCP tool's exposure
// like any other tool's (tool.ExposureOf).
type Exposure = tool.Exposure

const (
	// ExposureCodemode tools are callable from codemode scripts only (the default).
	ExposureCodemode Exposure = "codemode"
	// ExposureDeferred tools are declared once tool_search loads them.
	ExposureDeferred Exposure = "deferred"
	// ExposureDirect tools are declared to the model like built-ins.
	ExposureDirect Exposure = "direct"
	// ExposureHidden tools are registered but unreachable.
	ExposureHidden Exposure = "hidden"
)

var exposures = []Exposure{ExposureCodemode, ExposureDeferred, ExposureDirect, ExposureHidden}

// exposureAliases are older names accepted in configs.
var exposureAliases = map[string]Exposure{"codemode-deferred": ExposureCodemode}

func parseExposure(s string) (Exposure, bool) {
	if a, ok := exposureAliases[s]; ok {
		return a, true
	}
	for _, e := range exposures {
		if string(e) == s {
			return e, true
		}
	}
	return "", false
}

// DefaultTimeout is the per-request timeout when a server sets none.
const DefaultTimeoutSeconds = 60

// ToolRule is one toolExposure entry: an exact tool name or a pattern where
// `*` matches any characters.
type ToolRule struct {
	Pattern  string
	Exposure Exposure
}

// OAuthConfig is the `oauth` object of an HTTP server.
type OAuthConfig struct {
	ClientID              string `json:"clientId,omitempty"`
	ClientSecret          string `json:"clientSecret,omitempty"`
	CallbackPort          int    `json:"callbackPort,omitempty"`
	CallbackURL           string `json:"callbackUrl,omitempty"`
	Scope                 string `json:"scope,omitempty"`
	ClientName            string `json:"clientName,omitempty"`
	AuthServerMetadataURL string `json:"authServerMetadataUrl,omitempty"`
}

// KV is one name/value pair of env or headers, in file order.
type KV struct{ Key, Value string }

// ServerConfig is one validated mcpServers entry.
type ServerConfig struct {
	Type string // "", "stdio", "http" or "streamable-http" as written

	Command string
	Args    []string
	Env     []KV
	Cwd     string

	URL     string
	Headers []KV
	OAuth   *OAuthConfig

	Timeout      float64 // seconds; 0 = DefaultTimeoutSeconds
	Enabled      *bool
	Exposure     Exposure // "" = codemode
	ToolExposure []ToolRule
	Description  string
}

// IsHTTP reports a streamable HTTP server.
func (c *ServerConfig) IsHTTP() bool { return c.URL != "" }

// IsEnabled reports whether the server should be connected.
func (c *ServerConfig) IsEnabled() bool { return c.Enabled == nil || *c.Enabled }

// ServerExposure is the server's exposure with the default applied.
func (c *ServerConfig) ServerExposure() Exposure {
	if c.Exposure == "" {
		return ExposureCodemode
	}
	return c.Exposure
}

// ToolExposureOf is the exposure of one server tool: an exact toolExposure
// entry, else the first matching `*` pattern, else the server's exposure.
func (c *ServerConfig) ToolExposureOf(tool string) Exposure {
	for _, r := range c.ToolExposure {
		if r.Pattern == tool {
			return r.Exposure
		}
	}
	for _, r := range c.ToolExposure {
		if strings.Contains(r.Pattern, "*") && matchStar(r.Pattern, tool) {
			return r.Exposure
		}
	}
	return c.ServerExposure()
}

// matchStar matches s against a pattern where `*` is any run of characters.
func matchStar(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}

// TimeoutSeconds is the per-request timeout with the default applied.
func (c *ServerConfig) TimeoutSeconds() float64 {
	if c.Timeout <= 0 {
		return DefaultTimeoutSeconds
	}
	return c.Timeout
}

// UsesOAuth reports an HTTP server without an Authorization header: it
// signs in with OAuth when the server asks for it.
func (c *ServerConfig) UsesOAuth() bool {
	if !c.IsHTTP() {
		return false
	}
	for _, h := range c.Headers {
		if strings.EqualFold(h.Key, "authorization") {
			return false
		}
	}
	return true
}

// Scope says where an entry came from.
type Scope string

const (
	ScopeUser      Scope = "user"
	ScopeProject   Scope = "project"
	ScopeExtension Scope = "extension"
)

// Entry is one configured server.
type Entry struct {
	Name   string
	Config ServerConfig
	Source string // the mcp.json (or extension path) that defined it
	Line   int    // line of the server's key in Source
	Scope  Scope
	// Override is the project mcp.json that overrides enabled, exposure or
	// toolExposure of this user server.
	Override string
	raw      *object // the entry as written, for overrides
}

// Loaded is the merged configuration.
type Loaded struct {
	Servers []Entry
	// Errors name the file and line of each invalid entry; invalid entries
	// are skipped without stopping the others.
	Errors []error
	// AutoEnableCodemode is the top-level autoEnableCodemode, when set.
	AutoEnableCodemode *bool
	// ProjectConfig is the project mcp.json when the project is trusted.
	ProjectConfig string
	// IgnoredProjectConfig is the project mcp.json that exists but was not
	// read because the project is not trusted.
	IgnoredProjectConfig string
}

// Server returns the entry called name.
func (l *Loaded) Server(name string) (*Entry, bool) {
	for i := range l.Servers {
		if l.Servers[i].Name == name {
			return &l.Servers[i], true
		}
	}
	return nil, false
}

// LoadOptions says where to read mcp.json files.
type LoadOptions struct {
	UserConfig     string // ~/.relay/agent/mcp.json
	ProjectConfig  string // <cwd>/.relay/mcp.json
	ProjectTrusted bool
}

// Load reads the user file and, when the project is trusted, the project
// file. A project entry replaces a user entry of the same name; a project
// entry without command, url or type only overrides enabled, exposure and
// toolExposure of the user entry.
func Load(opts LoadOptions) *Loaded {
	l := &Loaded{}
	byName := map[string]int{}
	l.readFile(opts.UserConfig, ScopeUser, byName)
	if opts.ProjectConfig != "" {
		if opts.ProjectTrusted {
			l.ProjectConfig = opts.ProjectConfig
			l.readFile(opts.ProjectConfig, ScopeProject, byName)
		} else if _, err := os.Stat(opts.ProjectConfig); err == nil {
			l.IgnoredProjectConfig = opts.ProjectConfig
		}
	}
	return l
}

var overrideKeys = []string{"enabled", "exposure", "toolExposure"}

func isOverride(o *object) bool {
	_, c := o.get("command")
	_, u := o.get("url")
	_, t := o.get("type")
	return !c && !u && !t
}

// maxConfigBytes bounds an mcp.json read.
const maxConfigBytes = 4 << 20

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > maxConfigBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxConfigBytes)
	}
	buf := make([]byte, st.Size()+1)
	n, err := f.Read(buf)
	if err != nil && n == 0 && st.Size() > 0 {
		return nil, err
	}
	return buf[:n], nil
}

// readConfigObject reads path as the top-level mcp.json object. A missing
// file is (nil, nil).
func readConfigObject(path string) (*object, error) {
	data, err := readBounded(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if strings.TrimSpace(string(data)) == "" {
		return newObject(), nil
	}
	v, err := parseJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	top, ok := v.(*object)
	if !ok {
		return nil, fmt.Errorf("%s: line 1: expected an object with an \"mcpServers\" object", path)
	}
	if s, ok := top.get("mcpServers"); ok {
		if _, ok := s.(*object); !ok {
			return nil, fmt.Errorf("%s: line %d: \"mcpServers\" must be an object", path, top.line("mcpServers"))
		}
	}
	return top, nil
}

func (l *Loaded) readFile(path string, scope Scope, byName map[string]int) {
	if path == "" {
		return
	}
	top, err := readConfigObject(path)
	if err != nil {
		l.Errors = append(l.Errors, err)
		return
	}
	if top == nil {
		return
	}
	if v, ok := top.get("autoEnableCodemode"); ok {
		if b, ok := v.(bool); ok {
			l.AutoEnableCodemode = &b
		} else {
			l.Errors = append(l.Errors, fmt.Errorf("%s:%d: autoEnableCodemode must be a boolean", path, top.line("autoEnableCodemode")))
		}
	}
	sv, _ := top.get("mcpServers")
	servers, _ := sv.(*object)
	if servers == nil {
		return
	}
	for _, name := range servers.keys {
		line := servers.line(name)
		raw := servers.vals[name]
		fail := func(format string, a ...any) {
			l.Errors = append(l.Errors, fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, a...)))
		}
		if o, ok := raw.(*object); ok && scope == ScopeProject && isOverride(o) {
			i, found := byName[name]
			if !found {
				fail("server %q needs \"command\" or \"url\", or a user server to override", name)
				continue
			}
			var extra []string
			for _, k := range o.keys {
				if !containsString(overrideKeys, k) {
					extra = append(extra, k)
				}
			}
			if len(extra) > 0 {
				fail("server %q: an override can only set %s", name, strings.Join(overrideKeys, ", "))
				continue
			}
			merged := newObject()
			base := l.Servers[i].raw
			for _, k := range base.keys {
				merged.set(k, base.vals[k])
			}
			for _, k := range o.keys {
				merged.set(k, o.vals[k])
			}
			cfg, err := parseServer(name, merged)
			if err != nil {
				fail("%v", err)
				continue
			}
			e := l.Servers[i]
			e.Config, e.Override, e.raw = *cfg, path, merged
			l.Servers[i] = e
			continue
		}
		cfg, err := parseServer(name, raw)
		if err != nil {
			fail("%v", err)
			continue
		}
		if clash := l.namespaceClash(name); clash != "" {
			fail("server %q conflicts with %q", name, clash)
			continue
		}
		o, _ := raw.(*object)
		e := Entry{Name: name, Config: *cfg, Source: path, Line: line, Scope: scope, raw: o}
		if i, ok := byName[name]; ok {
			l.Servers[i] = e
		} else {
			byName[name] = len(l.Servers)
			l.Servers = append(l.Servers, e)
		}
	}
}

// namespaceClash returns a configured server other than name whose
// namespace equals name's (names differing only in - and _).
func (l *Loaded) namespaceClash(name string) string {
	for _, s := range l.Servers {
		if s.Name != name && Namespace(s.Name) == Namespace(name) {
			return s.Name
		}
	}
	return ""
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var serverNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// ValidServerName reports whether name may name a server.
func ValidServerName(name string) bool { return serverNameRE.MatchString(name) }

var loopbackHosts = []string{"localhost", "127.0.0.1", "[::1]", "::1"}

func isLoopbackHost(h string) bool { return containsString(loopbackHosts, h) }

// parseServer validates one mcpServers entry (raw as decoded by parseJSON
// or built by hand) and returns its config.
func parseServer(name string, raw any) (*ServerConfig, error) {
	if !ValidServerName(name) {
		return nil, fmt.Errorf("invalid server name %q (use letters, digits, \"_\" and \"-\")", name)
	}
	o, ok := raw.(*object)
	if !ok {
		return nil, fmt.Errorf("server %q must be an object", name)
	}
	c := &ServerConfig{}
	bad := func(format string, a ...any) (*ServerConfig, error) {
		return nil, fmt.Errorf("server %q: %s", name, fmt.Sprintf(format, a...))
	}
	exposureList := `"codemode", "deferred", "direct", "hidden"`
	if v, ok := o.get("exposure"); ok {
		s, _ := v.(string)
		e, ok := parseExposure(s)
		if !ok {
			return bad("exposure must be one of %s", exposureList)
		}
		c.Exposure = e
	}
	if v, ok := o.get("toolExposure"); ok {
		te, ok := v.(*object)
		if !ok {
			return bad("toolExposure must map tool names to exposures")
		}
		for _, k := range te.keys {
			s, _ := te.vals[k].(string)
			e, ok := parseExposure(s)
			if !ok {
				return bad("toolExposure %q must be one of %s", k, exposureList)
			}
			c.ToolExposure = append(c.ToolExposure, ToolRule{Pattern: k, Exposure: e})
		}
	}
	if v, ok := o.get("enabled"); ok {
		b, ok := v.(bool)
		if !ok {
			return bad("enabled must be a boolean")
		}
		c.Enabled = &b
	}
	if v, ok := o.get("description"); ok {
		s, ok := v.(string)
		if !ok {
			return bad("description must be a string")
		}
		c.Description = s
	}
	if v, ok := o.get("timeout"); ok {
		f, ok := number(v)
		if !ok || !(f > 0) {
			return bad("timeout must be a positive number of seconds")
		}
		c.Timeout = f
	}
	typ, hasType := o.get("type")
	if hasType {
		s, ok := typ.(string)
		if !ok {
			return bad("type must be \"stdio\", \"http\" or \"streamable-http\"")
		}
		if s == "sse" {
			return bad("legacy SSE transport is not supported; use the streamable HTTP URL (often /mcp instead of /sse)")
		}
		if s != "stdio" && s != "http" && s != "streamable-http" {
			return bad("type must be \"stdio\", \"http\" or \"streamable-http\"")
		}
		c.Type = s
	}
	if u, ok := o.get("url"); ok && c.Type != "stdio" {
		s, _ := u.(string)
		pu, err := url.Parse(s)
		if s == "" || err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return bad("url must be an http or https URL")
		}
		c.URL = s
		if v, ok := o.get("headers"); ok {
			kv, ok := stringMap(v)
			if !ok {
				return bad("headers must map names to strings")
			}
			c.Headers = kv
		}
		if v, ok := o.get("oauth"); ok {
			oc, err := parseOAuth(v)
			if err != nil {
				return bad("%v", err)
			}
			c.OAuth = oc
		}
		return c, nil
	}
	if cmd, ok := o.get("command"); ok && c.Type != "http" && c.Type != "streamable-http" {
		s, ok := cmd.(string)
		if !ok || s == "" {
			return bad("command must be a non-empty string (one executable; put its arguments in args)")
		}
		c.Command = s
		if v, ok := o.get("args"); ok {
			arr, ok := v.([]any)
			if !ok {
				return bad("args must be an array of strings")
			}
			for _, a := range arr {
				s, ok := a.(string)
				if !ok {
					return bad("args must be an array of strings")
				}
				c.Args = append(c.Args, s)
			}
		}
		if v, ok := o.get("env"); ok {
			kv, ok := stringMap(v)
			if !ok {
				return bad("env must map names to strings")
			}
			c.Env = kv
		}
		if v, ok := o.get("cwd"); ok {
			s, ok := v.(string)
			if !ok {
				return bad("cwd must be a string")
			}
			c.Cwd = s
		}
		return c, nil
	}
	return nil, fmt.Errorf("server %q needs either \"command\" (stdio) or \"url\" (streamable HTTP)", name)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

func stringMap(v any) ([]KV, bool) {
	o, ok := v.(*object)
	if !ok {
		return nil, false
	}
	out := make([]KV, 0, len(o.keys))
	for _, k := range o.keys {
		s, ok := o.vals[k].(string)
		if !ok {
			return nil, false
		}
		out = append(out, KV{k, s})
	}
	return out, true
}

func parseOAuth(v any) (*OAuthConfig, error) {
	o, ok := v.(*object)
	if !ok {
		return nil, errors.New("oauth must be an object")
	}
	c := &OAuthConfig{}
	str := func(key string, dst *string) error {
		if x, ok := o.get(key); ok {
			s, ok := x.(string)
			if !ok {
				return fmt.Errorf("oauth.%s must be a string", key)
			}
			*dst = s
		}
		return nil
	}
	for key, dst := range map[string]*string{"clientId": &c.ClientID, "clientSecret": &c.ClientSecret,
		"callbackUrl": &c.CallbackURL, "scope": &c.Scope, "clientName": &c.ClientName,
		"authServerMetadataUrl": &c.AuthServerMetadataURL} {
		if err := str(key, dst); err != nil {
			return nil, err
		}
	}
	if x, ok := o.get("callbackPort"); ok {
		f, ok := number(x)
		if !ok || f != float64(int(f)) || f < 1 || f > 65535 {
			return nil, errors.New("oauth.callbackPort must be a port number")
		}
		c.CallbackPort = int(f)
	}
	if _, ok := o.get("clientName"); ok && strings.TrimSpace(c.ClientName) == "" {
		return nil, errors.New("oauth.clientName must be a non-empty string")
	}
	if c.CallbackURL != "" {
		u, err := url.Parse(c.CallbackURL)
		if err != nil || u.Scheme != "http" || !isLoopbackHost(u.Hostname()) && u.Hostname() != "::1" || u.RawQuery != "" || u.Fragment != "" {
			return nil, errors.New("oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1] without query or fragment")
		}
		if p := u.Port(); p != "" && c.CallbackPort != 0 && p != fmt.Sprint(c.CallbackPort) {
			return nil, errors.New("oauth.callbackUrl and oauth.callbackPort name different ports")
		}
	}
	if c.AuthServerMetadataURL != "" {
		u, err := url.Parse(c.AuthServerMetadataURL)
		if err != nil || !(u.Scheme == "https" || u.Scheme == "http" && isLoopbackHost(u.Hostname())) {
			return nil, errors.New("oauth.authServerMetadataUrl must be an https URL, or http on localhost, 127.0.0.1, or [::1]")
		}
	}
	return c, nil
}
