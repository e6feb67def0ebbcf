package llamacpp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestNormalizeURL(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "http://127.0.0.1:8080", want: "http://127.0.0.1:8080"},
		{in: " http://127.0.0.1:8080/ ", want: "http://127.0.0.1:8080"},
		{in: "http://127.0.0.1:8080/v1", want: "http://127.0.0.1:8080"},
		{in: "http://127.0.0.1:8080/v1/", want: "http://127.0.0.1:8080"},
		{in: "https://box.lan/llama/v1?x=1#frag", want: "https://box.lan/llama"},
		{in: "http://host/v1/v1", want: "http://host/v1"},
		{in: "ftp://host", err: "must use http or https"},
		{in: "127.0.0.1:8080", err: "not an http(s) URL"},
		{in: "", err: "not an http(s) URL"},
		{in: "http://user:pw@host", err: "must not include credentials"},
	} {
		got, err := NormalizeURL(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("NormalizeURL(%q) = %q, %v; want error %q", tc.in, got, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "pw") {
				t.Errorf("error repeats the password: %v", err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NormalizeURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func info(t *testing.T, js string, router bool) ModelInfo {
	t.Helper()
	var m ModelInfo
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatal(err)
	}
	m.Router = router
	return m
}

func TestContextWindowPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name, js string
		want     int
	}{
		{"running n_ctx wins", `{"id":"a","meta":{"n_ctx":4096,"n_ctx_train":32768},"status":{"value":"loaded","args":["-c","8192"]}}`, 4096},
		{"command line -c", `{"id":"a","meta":{"n_ctx_train":32768},"status":{"value":"loaded","args":["llama-server","-c","8192"]}}`, 8192},
		{"--ctx-size", `{"id":"a","status":{"value":"loaded","args":["--ctx-size","12000"]}}`, 12000},
		{"bad value skipped", `{"id":"a","status":{"value":"loaded","args":["-c","lots","-ctx","2048"]}}`, 2048},
		{"flag as last argument", `{"id":"a","meta":{"n_ctx_train":32768},"status":{"value":"loaded","args":["-c"]}}`, 32768},
		{"nothing reported", `{"id":"a","status":{"value":"loaded"}}`, DefaultContextWindow},
	} {
		if got := info(t, tc.js, true).ContextWindow(); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestSelectable(t *testing.T) {
	for _, tc := range []struct {
		js       string
		router   bool
		autoload bool
		want     bool
	}{
		{`{"id":"a"}`, false, false, true}, // single-model server
		{`{"id":"a","status":{"value":"loaded"}}`, true, false, true},
		{`{"id":"a","status":{"value":"sleeping"}}`, true, false, true},
		{`{"id":"a","status":{"value":"loading"}}`, true, true, false},
		{`{"id":"a","status":{"value":"unloaded"}}`, true, false, false},
		{`{"id":"a","source":"preset","status":{"value":"unloaded"}}`, true, true, true},
		{`{"id":"a","source":"preset","status":{"value":"unloaded","failed":true}}`, true, true, false},
		{`{"id":"a","source":"cache","status":{"value":"unloaded"}}`, true, true, false},
	} {
		if got := info(t, tc.js, tc.router).Selectable(tc.autoload); got != tc.want {
			t.Errorf("%s autoload=%v: %v, want %v", tc.js, tc.autoload, got, tc.want)
		}
	}
}
