// Command fakellm serves a llmtest script as a fake model provider for
// end-to-end tests and benchmarks of the built relay binary.
//
//	fakellm -script script.json [-addr 127.0.0.1:0] [-log requests.jsonl]
//
// It prints the base URL (e.g. http://127.0.0.1:40123) on the first line of
// stdout once listening, then serves until interrupted or until stdin
// closes when -stdin is set. Point a model's baseUrl at that URL: every API
// is served on the same port (Anthropic /v1/messages, OpenAI
// /chat/completions and /responses, Gemini
// /models/ID:streamGenerateContent). With -log, each request is appended to
// the file as one JSON line {api, method, path, query, headers, body} as it
// arrives, so a test can assert what relay sent.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakellm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scriptPath := fs.String("script", "", "script JSON file (required)")
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	logPath := fs.String("log", "", "append each request as a JSON line to this file")
	watchStdin := fs.Bool("stdin", false, "exit when stdin closes")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usageText)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *scriptPath == "" {
		fmt.Fprintln(stderr, "fakellm: -script is required")
		return 2
	}
	script, err := llmtest.LoadScript(*scriptPath)
	if err != nil {
		fmt.Fprintln(stderr, "fakellm:", err)
		return 1
	}
	srv, err := llmtest.NewServerAt(*addr, script)
	if err != nil {
		fmt.Fprintln(stderr, "fakellm:", err)
		return 1
	}
	defer srv.Close()
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(stderr, "fakellm:", err)
			return 1
		}
		defer f.Close()
		enc := json.NewEncoder(f)
		enc.SetEscapeHTML(false)
		srv.OnRequest(func(r llmtest.Request) {
			_ = enc.Encode(map[string]any{"api": r.API, "method": r.Method, "path": r.Path, "query": r.RawQuery, "headers": r.Header, "body": json.RawMessage(orNull(r.Raw))})
		})
	}
	fmt.Fprintln(stdout, srv.URL)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *watchStdin {
		go func() {
			_, _ = io.Copy(io.Discard, bufio.NewReader(stdin))
			stop()
		}()
	}
	<-ctx.Done()
	return 0
}

// usageText is -help: what fakellm is for and the script format.
const usageText = `fakellm serves a scripted fake model provider on 127.0.0.1, for tests and
for trying relay without an API key.

Usage: fakellm -script SCRIPT.json [-addr 127.0.0.1:0] [-log FILE] [-stdin]

It prints its base URL on the first line of stdout, then serves until
interrupted. Every API relay speaks is served on that port (Anthropic
/v1/messages, OpenAI /chat/completions and /responses, Gemini
streamGenerateContent). Point a provider at it in ~/.relay/agent/models.json:

  {"providers": {"anthropic": {"baseUrl": "http://127.0.0.1:PORT"}}}

and run relay with any key (ANTHROPIC_API_KEY=test relay).

The script is JSON. For each request the first matching rule answers;
otherwise the next unused response, in order; "repeat": true repeats the
last one when they run out (else the fake answers HTTP 500).

  {
    "rules": [
      {"when": {"toolResult": true}, "response": {"text": "Done."}},
      {"when": {"contains": "hello", "model": "claude-opus-4-8"},
       "response": {"text": "Hi!"}, "times": 1}
    ],
    "responses": [
      {"thinking": "The user wants the files.",
       "toolCalls": [{"name": "bash", "args": {"command": "ls"}}]},
      {"text": "Here they are.", "chunkSize": 4, "delay": "20ms",
       "usage": {"input": 120, "output": 8}}
    ],
    "repeat": true
  }

A response: text, thinking, toolCalls [{name, args, id}] (or content, the
blocks as is: type text|thinking|redactedThinking|toolCall), usage {input,
output, cacheRead, cacheWrite}, stopReason (stop|length|toolUse),
chunkSize (bytes per delta), delay (before each event, "20ms"), model, and
fault: {status, body, retryAfter} (an HTTP error), {errorType,
errorMessage} (an in-stream error), cutAfter (bytes, then the connection
drops), garbage (a malformed chunk), stall ("30s" of silence).
"when" matches toolResult (the last message is a tool result), contains
(text in the raw request body), api (anthropic-messages, ...), model.

Flags:
`

func orNull(b []byte) []byte {
	if json.Valid(b) {
		return b
	}
	s, _ := json.Marshal(string(b))
	return s
}
