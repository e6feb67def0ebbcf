package bugreport

import (
	"encoding/json"
	"errors"
	"os"
	"sort"
	"strings"
)

// authSummary reduces auth.json to provider names and credential types;
// every other value is remembered as a secret.
func authSummary(path string, sec secretSet) any {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return []any{}
	}
	if err != nil {
		return map[string]string{"error": "unreadable: " + errKind(err)}
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return map[string]string{"error": "not valid JSON"}
	}
	type entry struct {
		Provider string `json:"provider"`
		Type     string `json:"type"`
	}
	out := []entry{}
	for _, p := range sortedKeys(raw) {
		var v any
		_ = json.Unmarshal(raw[p], &v)
		typ := "unknown"
		if o, ok := v.(map[string]any); ok {
			if t, ok := o["type"].(string); ok {
				typ = t
			}
			delete(o, "type")
		}
		collectStrings(v, sec)
		out = append(out, entry{p, typ})
	}
	return out
}

// errKind is an error without its path.
func errKind(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func collectStrings(v any, sec secretSet) {
	switch x := v.(type) {
	case string:
		sec.add(x)
	case map[string]any:
		for _, c := range x {
			collectStrings(c, sec)
		}
	case []any:
		for _, c := range x {
			collectStrings(c, sec)
		}
	}
}

// redactedConfigFile reads a JSON (with comments) config file and returns
// it with credential-like values replaced; nil when absent.
func redactedConfigFile(path string, sec secretSet) any {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return map[string]string{"error": "unreadable: " + errKind(err)}
	}
	var v any
	if strings.TrimSpace(string(data)) == "" {
		return nil
	}
	if err := json.Unmarshal(stripJSONComments(data), &v); err != nil {
		// The raw text could hold keys: report only that it is broken.
		return map[string]string{"error": "not valid JSON: " + err.Error()}
	}
	return redactValue("", v, sec)
}

const redacted = "<redacted>"

// redactValue copies v, replacing the values of credential-like keys and
// of every header map, and stripping credentials from URLs.
func redactValue(key string, v any, sec secretSet) any {
	switch v.(type) {
	case nil, bool, float64:
		// Flags and numbers under credential-like names (authHeader,
		// authorizationGate) hold no secret.
	default:
		if sensitiveKey(key) {
			collectStrings(v, sec)
			return redacted
		}
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		headers := strings.EqualFold(key, "headers")
		for k, c := range x {
			if headers && c != nil {
				collectStrings(c, sec)
				out[k] = redacted
				continue
			}
			out[k] = redactValue(k, c, sec)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, c := range x {
			out[i] = redactValue("", c, sec)
		}
		return out
	case string:
		if r := redactURL(x); r != x {
			sec.add(x)
			return r
		}
		return x
	}
	return v
}

// sensitiveKey reports names that hold credentials: apiKey, api_key,
// accessToken, CLIENT_SECRET, password, authorization, cookie ...
func sensitiveKey(key string) bool {
	if key == "" {
		return false
	}
	var b strings.Builder
	rs := []rune(key)
	for i, c := range rs {
		if i > 0 && c >= 'A' && c <= 'Z' {
			if p := rs[i-1]; (p >= 'a' && p <= 'z') || (p >= '0' && p <= '9') {
				b.WriteByte('_')
			}
		}
		b.WriteRune(c)
	}
	words := strings.FieldsFunc(strings.ToLower(b.String()), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	for i, w := range words {
		switch w {
		case "apikey", "secret", "token", "password", "passwd", "credential", "credentials", "authorization", "cookie", "auth":
			return true
		case "api":
			if i+1 < len(words) && words[i+1] == "key" {
				return true
			}
		case "key":
			if len(words) == 1 || (i > 0 && (words[i-1] == "access" || words[i-1] == "private")) {
				return true
			}
		}
	}
	return false
}

// redactURL removes user info and credential-like query parameters from
// an absolute URL; other strings come back unchanged.
func redactURL(s string) string {
	i := strings.Index(s, "://")
	if i <= 0 || strings.ContainsAny(s[:i], " \t\n/") {
		return s
	}
	rest := s[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	host := rest[:end]
	if at := strings.LastIndex(host, "@"); at >= 0 {
		host = host[at+1:]
	}
	tail := rest[end:]
	if q := strings.Index(tail, "?"); q >= 0 {
		path, query := tail[:q], tail[q+1:]
		frag := ""
		if h := strings.Index(query, "#"); h >= 0 {
			query, frag = query[:h], query[h:]
		}
		params := strings.Split(query, "&")
		for j, p := range params {
			if k, _, ok := strings.Cut(p, "="); ok && sensitiveKey(k) {
				params[j] = k + "=" + redacted
			}
		}
		tail = path + "?" + strings.Join(params, "&") + frag
	}
	return s[:i+3] + host + tail
}

// stripJSONComments removes // and /* */ comments and trailing commas
// outside strings, so JSONC config files parse as JSON.
func stripJSONComments(src []byte) []byte {
	out := make([]byte, 0, len(src))
	inStr := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inStr {
			out = append(out, c)
			if c == '\\' && i+1 < len(src) {
				i++
				out = append(out, src[i])
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			if i < len(src) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			i += 2
			for i+1 < len(src) && !(src[i] == '*' && src[i+1] == '/') {
				i++
			}
			i++
		case c == '}' || c == ']':
			j := len(out) - 1
			for j >= 0 && (out[j] == ' ' || out[j] == '\t' || out[j] == '\n' || out[j] == '\r') {
				j--
			}
			if j >= 0 && out[j] == ',' {
				out = append(out[:j], out[j+1:]...)
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// secretSet collects credential values to scrub from the archive.
type secretSet map[string]bool

// add remembers v; very short values are ignored (scrubbing "1" or "true"
// would mangle the report and such values protect nothing).
func (s secretSet) add(v string) {
	v = strings.TrimSpace(v)
	if len(v) >= 6 {
		s[v] = true
	}
}

// list returns the values longest first, so a secret containing another
// is replaced whole.
func (s secretSet) list() []string {
	out := make([]string, 0, len(s))
	for v := range s {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}

// scrub replaces each secret, raw and JSON-escaped, with <redacted>.
func scrub(data []byte, secrets []string) []byte {
	if len(secrets) == 0 {
		return data
	}
	s := string(data)
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, redacted)
		if b, err := json.Marshal(v); err == nil {
			if esc := string(b[1 : len(b)-1]); esc != v {
				s = strings.ReplaceAll(s, esc, redacted)
			}
		}
	}
	return []byte(s)
}
