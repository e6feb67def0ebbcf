package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

var indentRE = regexp.MustCompile(`(?m)^([ \t]+)\S`)

// editServers reads an mcp.json (an empty one when missing), lets edit
// change its mcpServers object, and writes the file back with its own
// indentation when edit returns true. Other content and key order stay.
func editServers(path string, edit func(servers, top *object) (bool, error)) error {
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	top, err := readConfigObject(path)
	if err != nil {
		return err
	}
	if top == nil {
		top = newObject()
	}
	servers, _ := top.vals["mcpServers"].(*object)
	if servers == nil {
		servers = newObject()
	}
	changed, err := edit(servers, top)
	if err != nil || !changed {
		return err
	}
	top.set("mcpServers", servers)
	indent := "  "
	if m := indentRE.FindSubmatch(data); m != nil {
		indent = string(m[1])
	}
	compact, err := marshalNoEscape(top)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", indent); err != nil {
		return err
	}
	out.WriteByte('\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeFileAtomic(path, out.Bytes(), 0o644)
}

func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// AddServer writes a server entry to the mcp.json at path, creating the
// file when missing; an entry of the same name is replaced (replaced true).
func AddServer(path, name string, c *ServerConfig) (replaced bool, err error) {
	if _, err := parseServer(name, configObject(c)); err != nil {
		return false, err
	}
	err = editServers(path, func(servers, _ *object) (bool, error) {
		_, replaced = servers.get(name)
		servers.set(name, configObject(c))
		return true, nil
	})
	return replaced, err
}

// RemoveServer deletes a server entry; false when the file has none.
func RemoveServer(path, name string) (removed bool, err error) {
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return false, nil
	}
	err = editServers(path, func(servers, _ *object) (bool, error) {
		removed = servers.del(name)
		return removed, nil
	})
	return removed, err
}

// Patch is a change /mcp makes to one server.
type Patch struct {
	Enabled  *bool
	Exposure *Exposure
}

// UpdateServer changes enabled or exposure of a server in the file that
// defines or overrides it. With override, a missing entry is added as a
// project override. Defaults (enabled, codemode) remove the key, except in
// overrides, where they must replace the user server's value.
func UpdateServer(path, name string, p Patch, override bool) error {
	return editServers(path, func(servers, _ *object) (bool, error) {
		v, ok := servers.get(name)
		if !ok && override {
			v = newObject()
			servers.set(name, v)
		}
		o, isObj := v.(*object)
		if !isObj {
			return false, fmt.Errorf("%s does not define MCP server %q", path, name)
		}
		keep := isOverride(o)
		if p.Enabled != nil {
			if *p.Enabled && !keep {
				o.del("enabled")
			} else {
				o.set("enabled", *p.Enabled)
			}
		}
		if p.Exposure != nil {
			if *p.Exposure == ExposureCodemode && !keep {
				o.del("exposure")
			} else {
				o.set("exposure", string(*p.Exposure))
			}
		}
		return true, nil
	})
}

// configObject is the mcp.json form of c.
func configObject(c *ServerConfig) *object {
	o := newObject()
	kv := func(pairs []KV) *object {
		x := newObject()
		for _, p := range pairs {
			x.set(p.Key, p.Value)
		}
		return x
	}
	if c.Type != "" {
		o.set("type", c.Type)
	}
	if c.URL != "" {
		o.set("url", c.URL)
		if len(c.Headers) > 0 {
			o.set("headers", kv(c.Headers))
		}
		if c.OAuth != nil {
			oo := newObject()
			for _, f := range []struct {
				k, v string
			}{{"clientId", c.OAuth.ClientID}, {"clientSecret", c.OAuth.ClientSecret}, {"callbackUrl", c.OAuth.CallbackURL},
				{"scope", c.OAuth.Scope}, {"clientName", c.OAuth.ClientName}, {"authServerMetadataUrl", c.OAuth.AuthServerMetadataURL}} {
				if f.v != "" {
					oo.set(f.k, f.v)
				}
			}
			if c.OAuth.CallbackPort != 0 {
				oo.set("callbackPort", json.Number(fmt.Sprint(c.OAuth.CallbackPort)))
			}
			if len(oo.keys) > 0 {
				o.set("oauth", oo)
			}
		}
	} else {
		o.set("command", c.Command)
		if len(c.Args) > 0 {
			arr := make([]any, len(c.Args))
			for i, a := range c.Args {
				arr[i] = a
			}
			o.set("args", arr)
		}
		if len(c.Env) > 0 {
			o.set("env", kv(c.Env))
		}
		if c.Cwd != "" {
			o.set("cwd", c.Cwd)
		}
	}
	if c.Timeout > 0 {
		o.set("timeout", json.Number(fmt.Sprint(c.Timeout)))
	}
	if c.Enabled != nil {
		o.set("enabled", *c.Enabled)
	}
	if c.Exposure != "" {
		o.set("exposure", string(c.Exposure))
	}
	if len(c.ToolExposure) > 0 {
		te := newObject()
		for _, r := range c.ToolExposure {
			te.set(r.Pattern, string(r.Exposure))
		}
		o.set("toolExposure", te)
	}
	if c.Description != "" {
		o.set("description", c.Description)
	}
	return o
}
