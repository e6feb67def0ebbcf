package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/bedrock/bedrocktest"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// A Bedrock model of the built-in catalog, its endpoint moved to the fake
// by models.json, runs a tool call and answers: signed with the keys of
// the environment, thinking on, the tool result sent back.
func TestBedrockEndToEnd(t *testing.T) {
	const id = "anthropic.claude-sonnet-4-5-20250929-v1:0"
	srv := bedrocktest.NewServer(
		bedrocktest.Response{Frames: [][]byte{
			bedrocktest.MessageStart(),
			bedrocktest.ThinkingDelta(0, "I should read it."),
			bedrocktest.SignatureDelta(0, "sig"),
			bedrocktest.BlockStop(0),
			bedrocktest.ToolStart(1, "tooluse_1", "read"),
			bedrocktest.ToolDelta(1, `{"path":"note.txt"}`),
			bedrocktest.BlockStop(1),
			bedrocktest.MessageStop("tool_use"),
			bedrocktest.Metadata(100, 20, 0, 0),
		}},
		bedrocktest.Response{Frames: bedrocktest.TextAnswer("The note says hello from bedrock.", 7)},
	)
	defer srv.Close()
	e := newEnv(t, &llmtest.Script{}, nil)
	os.WriteFile(filepath.Join(e.cwd, "note.txt"), []byte("hello from the note file"), 0o644)
	models := fmt.Sprintf(`{"providers":{"anthropic":{"baseUrl":%q},"amazon-bedrock":{"baseUrl":%q}}}`, e.fake.URL, srv.URL)
	os.WriteFile(filepath.Join(e.agentDir, "models.json"), []byte(models), 0o644)

	c := e.cmd(nil, "-p", "--no-session", "--model", "amazon-bedrock/"+id, "--thinking", "low", "what does note.txt say?")
	none := filepath.Join(t.TempDir(), "none")
	c.Env = append(c.Env, "AWS_ACCESS_KEY_ID="+srv.AccessKey, "AWS_SECRET_ACCESS_KEY="+srv.SecretKey, "AWS_SESSION_TOKEN=",
		"AWS_REGION=us-east-1", "AWS_DEFAULT_REGION=", "AWS_PROFILE=", "AWS_BEARER_TOKEN_BEDROCK=", "AWS_ENDPOINT_URL=",
		"AWS_ENDPOINT_URL_BEDROCK_RUNTIME=", "AWS_CONFIG_FILE="+none, "AWS_SHARED_CREDENTIALS_FILE="+none)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		t.Fatalf("%v\nstdout %s\nstderr %s", err, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "The note says hello from bedrock.") {
		t.Fatalf("stdout %q stderr %q", out.String(), errb.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d Bedrock requests", len(reqs))
	}
	for i, r := range reqs {
		if !r.SignatureOK {
			t.Errorf("request %d: %s", i, r.SignatureNote)
		}
	}
	second := string(reqs[1].Body)
	for _, want := range []string{`"toolResult"`, "hello from the note file", `"signature":"sig"`, `"budget_tokens"`} {
		if !strings.Contains(second, want) {
			t.Errorf("second request lacks %s: %.600s", want, second)
		}
	}
}

// A catalog Azure OpenAI model reaches the deployment the environment
// names: AZURE_OPENAI_BASE_URL, the api-version, the deployment map and
// the api-key header.
func TestAzureEndToEnd(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "hello from azure"}}}, nil)
	c := e.cmd(nil, "-p", "--no-session", "--model", "azure-openai-responses/gpt-5.4", "hi")
	c.Env = append(c.Env, "AZURE_OPENAI_API_KEY=az-key", "AZURE_OPENAI_BASE_URL="+e.fake.URL+"/openai/v1",
		"AZURE_OPENAI_API_VERSION=2025-04-01-preview", "AZURE_OPENAI_DEPLOYMENT_NAME_MAP=gpt-5.4=team-gpt54", "AZURE_OPENAI_RESOURCE_NAME=")
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil || !strings.Contains(out.String(), "hello from azure") {
		t.Fatalf("%v\nstdout %q\nstderr %q", err, out.String(), errb.String())
	}
	r := e.fake.Requests()[0]
	if r.Path != "/openai/v1/responses" || r.RawQuery != "api-version=2025-04-01-preview" || r.Header.Get("api-key") != "az-key" || r.Body["model"] != "team-gpt54" {
		t.Errorf("request %s?%s key %q model %v", r.Path, r.RawQuery, r.Header.Get("api-key"), r.Body["model"])
	}
}
