package vertex

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func model(base string) *llm.Model {
	return &llm.Model{ID: "gemini-2.5-pro", Name: "Gemini 2.5 Pro (Vertex)", API: API, Provider: "google-vertex", BaseURL: base,
		Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 1048576, MaxTokens: 65536,
		Cost: llm.ModelCost{Input: 1.25, Output: 10, CacheRead: 0.125}}
}

func envMap(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestEndpoint(t *testing.T) {
	cases := []struct {
		name, base, project, location string
		express                       bool
		want, err                     string
	}{
		{name: "express", express: true, want: "https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse"},
		{name: "regional", project: "my-proj", location: "us-central1",
			want: "https://us-central1-aiplatform.googleapis.com/v1/projects/my-proj/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse"},
		{name: "global", project: "my-proj", location: "global",
			want: "https://aiplatform.googleapis.com/v1/projects/my-proj/locations/global/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse"},
		{name: "catalog placeholder base", base: "https://{location}-aiplatform.googleapis.com", project: "p", location: "europe-west4",
			want: "https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse"},
		{name: "proxy root gets the version", base: "https://proxy.example/vertex/", project: "p", location: "l",
			want: "https://proxy.example/vertex/v1/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse"},
		{name: "proxy with version kept", base: "https://proxy.example/v1beta1/projects/p/locations/l", express: true,
			want: "https://proxy.example/v1beta1/projects/p/locations/l/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse"},
		{name: "bad base", base: "not a url", err: "invalid Vertex AI base URL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Endpoint(model(tc.base), tc.project, tc.location, tc.express)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %q %v, want error %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q %v\nwant %q", got, err, tc.want)
			}
		})
	}
}

func TestAPIKey(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "vertex says hi"}}})
	defer srv.Close()
	tg := llmtest.Target{Client: New(Config{}), Model: model}
	msg, _ := tg.Run(t, srv, &llm.Request{APIKey: "AQ.vertex-key"})
	if msg.Text() != "vertex says hi" || msg.API != API {
		t.Fatalf("%q %s %s", msg.Text(), msg.API, msg.ErrorMessage)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/publishers/google/models/gemini-2.5-pro:streamGenerateContent" || r.Header.Get("x-goog-api-key") != "AQ.vertex-key" {
		t.Errorf("path %s headers %v", r.Path, r.Header)
	}
}

// tokenServer is a fake Google OAuth token endpoint for a refresh token.
func tokenServer(t *testing.T, refresh string, calls *atomic.Int32) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		r.ParseForm()
		if r.Form.Get("grant_type") != "refresh_token" || r.Form.Get("refresh_token") != refresh || r.Form.Get("client_id") != "cid" {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":"invalid_grant","error_description":"Token has been expired or revoked."}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"ya29.token-%d","expires_in":3599,"token_type":"Bearer"}`, calls.Load())
	}))
}

func adcFile(t *testing.T, tokenURL, refresh string) string {
	p := filepath.Join(t.TempDir(), "adc.json")
	data, _ := json.Marshal(map[string]string{"type": "authorized_user", "client_id": "cid", "client_secret": "csecret",
		"refresh_token": refresh, "token_uri": tokenURL})
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestApplicationDefaultCredentials(t *testing.T) {
	var calls atomic.Int32
	tokens := tokenServer(t, "1//refresh", &calls)
	defer tokens.Close()
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "one"}, {Text: "two"}}})
	defer srv.Close()
	c := New(Config{Getenv: envMap(map[string]string{
		"GOOGLE_APPLICATION_CREDENTIALS": adcFile(t, tokens.URL, "1//refresh"),
		"GCLOUD_PROJECT":                 "proj-1", "GOOGLE_CLOUD_LOCATION": "us-east5",
	})})
	m := model(srv.URL + "/v1/projects/proj-1/locations/us-east5")
	for i, want := range []string{"one", "two"} {
		msg := c.Stream(t.Context(), &llm.Request{Model: m, APIKey: llm.AmbientKey, Messages: []llm.Message{&llm.UserMessage{Content: llm.StringContent("hi")}}}, nil)
		if msg.Text() != want {
			t.Fatalf("request %d: %q %s", i, msg.Text(), msg.ErrorMessage)
		}
	}
	for _, r := range srv.Requests() {
		if got := r.Header.Get("Authorization"); got != "Bearer ya29.token-1" || r.Header.Get("x-goog-api-key") != "" {
			t.Errorf("auth %q", got)
		}
		if r.Path != "/v1/projects/proj-1/locations/us-east5/publishers/google/models/gemini-2.5-pro:streamGenerateContent" {
			t.Errorf("path %s", r.Path)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d token requests for two model requests, want 1 (a valid token adds no request)", n)
	}
}

func TestCredentialErrors(t *testing.T) {
	var calls atomic.Int32
	tokens := tokenServer(t, "good", &calls)
	defer tokens.Close()
	cases := []struct {
		name string
		env  map[string]string
		kind llm.ErrorKind
		has  string
	}{
		{"no project", map[string]string{"GOOGLE_CLOUD_LOCATION": "us-central1"}, llm.ErrAuth, "GOOGLE_CLOUD_PROJECT"},
		{"no location", map[string]string{"GOOGLE_CLOUD_PROJECT": "p"}, llm.ErrAuth, "GOOGLE_CLOUD_LOCATION"},
		{"missing credentials file", map[string]string{"GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "l",
			"GOOGLE_APPLICATION_CREDENTIALS": "/nonexistent/adc.json"}, llm.ErrAuth, "gcloud auth application-default login"},
		{"revoked refresh token", map[string]string{"GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "l",
			"GOOGLE_APPLICATION_CREDENTIALS": adcFile(t, tokens.URL, "revoked")}, llm.ErrAuth, "invalid_grant"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg := New(Config{Getenv: envMap(tc.env)}).Stream(t.Context(), &llm.Request{Model: model(""), APIKey: llm.AmbientKey}, nil)
			if msg.StopReason != llm.StopError || msg.Err.Kind != tc.kind || !strings.Contains(msg.ErrorMessage, tc.has) {
				t.Fatalf("%s %+v", msg.StopReason, msg.Err)
			}
		})
	}
}

func errBody(code int, status, msg string) string {
	return `{"error":{"code":` + strconv.Itoa(code) + `,"message":"` + msg + `","status":"` + status + `"}}`
}

func TestFaults(t *testing.T) {
	llmtest.RunFaults(t, llmtest.Target{Client: New(Config{}), Model: model}, llmtest.Faults{
		RateLimit: llmtest.HTTPError{Body: errBody(429, "RESOURCE_EXHAUSTED", "Resource exhausted. Please try again later."), Has: "Resource exhausted"},
		Server:    llmtest.HTTPError{Body: errBody(500, "INTERNAL", "Internal error encountered.")},
		Auth:      llmtest.HTTPError{Body: errBody(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."), Has: "invalid authentication"},
		Quota: llmtest.HTTPError{Body: errBody(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details"),
			Has: "quota"},
		Overflow: llmtest.HTTPError{Body: errBody(400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."),
			Has: "input token count"},
		InStream:    llmtest.Fault{ErrorType: "UNAVAILABLE", ErrorMessage: "The model is overloaded. Please try again later."},
		InStreamHas: "UNAVAILABLE: The model is overloaded",
		CutAfter:    900,
		Garbage:     llmtest.Fault{Garbage: `{"candidates": [{"content": {"parts": [{"text": "x"`},
		EarlyEndHas: "connection closed",
	})
}
