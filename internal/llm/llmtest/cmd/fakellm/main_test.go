package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFakeLLMServesScriptAndLogs(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script.json")
	logPath := filepath.Join(dir, "req.jsonl")
	os.WriteFile(script, []byte(`{"zeroLatency": true, "rules": [{"when": {"toolResult": true}, "response": {"text": "done"}}],
		"responses": [{"toolCalls": [{"name": "ls", "args": {"path": "."}}]}]}`), 0o644)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int)
	go func() { done <- run([]string{"-script", script, "-log", logPath, "-stdin"}, inR, outW, io.Discard) }()
	url, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url = strings.TrimSpace(url)
	post := func(body string) string {
		resp, err := http.Post(url+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := post(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`); !strings.Contains(got, `"tool_use"`) {
		t.Fatalf("first answer: %s", got)
	}
	if got := post(`{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"x"}]}]}`); !strings.Contains(got, `"done"`) {
		t.Fatalf("rule answer: %s", got)
	}
	inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	log, _ := os.ReadFile(logPath)
	if n := strings.Count(string(log), "\n"); n != 2 || !strings.Contains(string(log), `"path":"/v1/messages"`) {
		t.Fatalf("log: %s", log)
	}
}

func TestFakeLLMBadScript(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.json")
	os.WriteFile(script, []byte(`{"responsez": []}`), 0o644)
	var errb strings.Builder
	if code := run([]string{"-script", script}, strings.NewReader(""), io.Discard, &errb); code != 1 || !strings.Contains(errb.String(), "responsez") {
		t.Fatalf("code %d: %s", code, errb.String())
	}
}
