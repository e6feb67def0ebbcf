package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// piPackage finds the published @mariozechner/pi-coding-agent package
// (extracted, with package.json): RELAY_PI_PACKAGE, else where .ci/run
// puts it.
func piPackage() string {
	if p := os.Getenv("RELAY_PI_PACKAGE"); p != "" {
		return p
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "relay-pi", "package")
}

// The original's rpc.test.ts assertions, run by pi's own RpcClient
// (unchanged, from the published package) against relay's RPC mode and
// the fake provider: testdata/rpcclient/rpc-test.mjs.
func TestOriginalRPCClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	client := filepath.Join(piPackage(), "dist", "modes", "rpc", "rpc-client.js")
	if _, err := os.Stat(client); err != nil {
		t.Skipf("pi's RpcClient not found at %s (set RELAY_PI_PACKAGE, or see .ci/run)", client)
	}
	summary := llmtest.Response{Text: "## Goal\nSay hello.\n\n## Progress\n### Done\n- [x] Greeted"}
	e := newEnv(t, &llmtest.Script{
		Rules: []llmtest.Rule{
			{When: llmtest.Match{Contains: "<conversation>"}, Response: summary},
			{When: llmtest.Match{Contains: "unique-4242"}, Response: llmtest.Response{Text: "unique-4242"}},
			{When: llmtest.Match{Contains: "test123"}, Response: llmtest.Response{Text: "test123"}},
			{When: llmtest.Match{Contains: "Reply with just 'ok'"}, Response: llmtest.Response{Text: "ok"}},
		},
		Responses: []llmtest.Response{{Text: "hello", Usage: &llmtest.Usage{Input: 40, Output: 2}}},
		Repeat:    true,
	}, nil)
	script, _ := filepath.Abs(filepath.Join("testdata", "rpcclient", "rpc-test.mjs"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = e.cwd
	cmd.Env = append(os.Environ(), "PI_RPC_CLIENT="+client, "RELAY_BIN="+relayBin, "FAKE_URL="+e.fake.URL,
		"PROJECT_DIR="+e.cwd, "ANTHROPIC_API_KEY=test-key", "RELAY_OFFLINE=1", "OPENAI_API_KEY=", "GEMINI_API_KEY=",
		"RELAY_CODING_AGENT_SESSION_DIR=")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("rpc-test.mjs: %v", err)
	}
	if !strings.Contains(string(out), " 0 failed") {
		t.Fatalf("unexpected summary")
	}
}
