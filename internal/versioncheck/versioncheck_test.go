package versioncheck

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/relay-agent/relay/internal/config"
)

type fixed struct {
	v   string
	err error
}

func (f fixed) Latest(context.Context) (string, error) { return f.v, f.err }

func TestNewer(t *testing.T) {
	tests := []struct {
		latest, current, want string
	}{
		{"v0.2.0", "0.1.0", "0.2.0"},
		{"0.1.0", "0.1.0", ""},
		{"0.1.0", "0.1.0-dev", "0.1.0"},
		{"0.1.1-rc.1", "0.1.0", ""},
		{"0.0.9", "0.1.0", ""},
		{"1.0.0", "0.9.12", "1.0.0"},
		{"garbage", "0.1.0", ""},
		{"0.2.0", "dev", ""},
	}
	for _, tt := range tests {
		if got := Newer(context.Background(), fixed{v: tt.latest}, tt.current); got != tt.want {
			t.Errorf("Newer(%q, %q) = %q, want %q", tt.latest, tt.current, got, tt.want)
		}
	}
	if got := Newer(context.Background(), fixed{err: errors.New("offline")}, "0.1.0"); got != "" {
		t.Errorf("error: %q", got)
	}
}

func TestGitHub(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/repos/relay-agent/relay/releases/latest" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"tag_name":"v9.8.7","name":"x"}`))
	}))
	defer srv.Close()
	n := Notice(context.Background(), GitHub{URL: srv.URL}, "0.1.0")
	if !strings.Contains(n, "relay 9.8.7 is available") {
		t.Errorf("notice %q", n)
	}
	if _, err := (GitHub{URL: srv.URL, Repo: "no/such"}).Latest(context.Background()); err == nil {
		t.Error("404 not reported")
	}
	if hits.Load() != 2 {
		t.Errorf("hits %d", hits.Load())
	}
}

func TestEnabled(t *testing.T) {
	for _, tt := range []struct {
		skip, offline string
		want          bool
	}{{"", "", true}, {"1", "", false}, {"", "true", false}, {"no", "", true}} {
		env := config.EnvFromMap(map[string]string{"RELAY_SKIP_VERSION_CHECK": tt.skip, "RELAY_OFFLINE": tt.offline})
		if got := Enabled(env); got != tt.want {
			t.Errorf("skip=%q offline=%q: %v", tt.skip, tt.offline, got)
		}
	}
}
