// Command agentbench measures relay end to end against the fake provider:
// start-up, launch to first model request, a 20-turn tool loop, resuming a
// large session, and a large streamed answer in JSON mode. Run it through
// bench/agent.sh.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

var (
	relay = flag.String("relay", "./relay", "relay binary")
	only  = flag.String("only", "", "run only this measurement: startup, loop, resume, resume-nocompact, json")
	file  = flag.String("session", "", "resume-nocompact: resume this session file (e.g. from sessionbench gen-one -compact-kb 0) instead of a generated one")
)

func want(name string) bool { return *only == "" || *only == name }

type env struct {
	agentDir, cwd string
	fake          *llmtest.Server
	front         *httptest.Server
	mu            sync.Mutex
	firstReq      time.Time
	// Recorded responses are replayed from memory once captured, so the
	// figures measure relay rather than the fake's encoder.
	record   bool
	recorded [][]byte
	served   int
}

func newEnv(script *llmtest.Script) *env { return newEnvModels(script, "") }

// newEnvModels is newEnv with extra anthropic provider keys in models.json
// (e.g. a modelOverrides entry).
func newEnvModels(script *llmtest.Script, extra string) *env {
	root, _ := os.MkdirTemp("", "relay-bench")
	e := &env{agentDir: filepath.Join(root, "agent"), cwd: filepath.Join(root, "proj")}
	os.MkdirAll(e.agentDir, 0o755)
	os.MkdirAll(e.cwd, 0o755)
	e.fake = llmtest.NewServer(script)
	// A front proxy stamps the arrival of the first request.
	target, _ := url.Parse(e.fake.URL)
	e.front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		if e.firstReq.IsZero() {
			e.firstReq = time.Now()
		}
		if !e.record && e.served < len(e.recorded) {
			data := e.recorded[e.served]
			e.served++
			e.mu.Unlock()
			// A replayed answer needs no body: drain it as a remote
			// server would, without holding (and growing a buffer for)
			// 50 MB on the two cores relay is measured on.
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			w.Write(data)
			return
		}
		e.mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		req, _ := http.NewRequest(r.Method, target.String()+r.URL.RequestURI(), bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			w.WriteHeader(502)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		buf := make([]byte, 32<<10)
		var captured bytes.Buffer
		defer func() {
			e.mu.Lock()
			if e.record {
				e.recorded = append(e.recorded, captured.Bytes())
			}
			e.mu.Unlock()
		}()
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 {
				captured.Write(buf[:n])
				w.Write(buf[:n])
				if f, ok := w.(http.Flusher); ok {
					f.Flush()
				}
			}
			if err != nil {
				return
			}
		}
	}))
	models := fmt.Sprintf(`{"providers":{"anthropic":{"baseUrl":%q%s}}}`, e.front.URL, extra)
	os.WriteFile(filepath.Join(e.agentDir, "models.json"), []byte(models), 0o644)
	os.WriteFile(filepath.Join(e.agentDir, "settings.json"), []byte(`{"harnessCore":{"evidence":false}}`), 0o644)
	return e
}

func (e *env) close() {
	e.front.Close()
	e.fake.Close()
	os.RemoveAll(filepath.Dir(e.agentDir))
}

type result struct {
	wall   time.Duration
	rssMB  float64
	cpu    time.Duration // user + system, with rssMB
	outLen int
	first  time.Duration
}

// replayFrom records the responses of one warm-up run and serves them
// from memory afterwards.
func (e *env) replayFrom(args ...string) {
	e.mu.Lock()
	e.record = true
	e.mu.Unlock()
	e.run(args...)
	e.mu.Lock()
	e.record = false
	e.mu.Unlock()
}

func (e *env) rewind() { e.mu.Lock(); e.served = 0; e.mu.Unlock() }

func (e *env) run(args ...string) result { return e.exec(false, args...) }

// runRSS also reports the peak RSS through /usr/bin/time (rusage of a
// child of this big process would include our own pages).
func (e *env) runRSS(args ...string) result { return e.exec(true, args...) }

func (e *env) exec(rss bool, args ...string) result {
	c := exec.Command(*relay, args...)
	rssFile := ""
	if rss {
		f, _ := os.CreateTemp("", "rss")
		f.Close()
		rssFile = f.Name()
		defer os.Remove(rssFile)
		c = exec.Command("/usr/bin/time", append([]string{"-f", "%M %U %S", "-o", rssFile, *relay}, args...)...)
	}
	c.Dir = e.cwd
	c.Env = append(os.Environ(), "RELAY_CODING_AGENT_DIR="+e.agentDir, "ANTHROPIC_API_KEY=bench", "RELAY_OFFLINE=1")
	var out countWriter
	c.Stdout = &out
	var errBuf bytes.Buffer
	c.Stderr = &errBuf
	e.mu.Lock()
	e.firstReq = time.Time{}
	e.mu.Unlock()
	start := time.Now()
	if err := c.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "relay %v: %v\n%s", args, err, errBuf.String())
		os.Exit(1)
	}
	r := result{wall: time.Since(start), outLen: out.n}
	if rssFile != "" {
		b, _ := os.ReadFile(rssFile)
		var kb, user, sys float64
		fmt.Sscanf(strings.TrimSpace(string(b)), "%f %f %f", &kb, &user, &sys)
		r.rssMB = kb / 1024
		r.cpu = time.Duration((user + sys) * float64(time.Second))
	}
	e.mu.Lock()
	if !e.firstReq.IsZero() {
		r.first = e.firstReq.Sub(start)
	}
	e.mu.Unlock()
	return r
}

type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

const model = "--model=anthropic/claude-sonnet-4-5"

func main() {
	flag.Parse()
	fmt.Println("relay end-to-end benchmark (median of runs; fake provider on loopback, zero latency)")
	if want("startup") {
		benchStartup()
	}
	if want("mcp") {
		benchMCPStartup()
	}
	if want("loop") {
		benchLoop()
	}
	if want("resume") {
		benchResume(300, "", "resume %.0f MB / 20,000 entries + prompt:  %7.1f ms, peak RSS %.0f MB   (target ≤ 500 ms, ≤ 150 MB)\n")
	}
	if want("resume-nocompact") {
		// A context window no 50 MB session fills: nothing is compacted, all
		// 20,000 messages are restored and sent (issue 11 item 10).
		benchResume(0, `,"modelOverrides":{"claude-sonnet-4-5":{"contextWindow":100000000}}`,
			"resume never-compacted %.0f MB / 20,000 entries + prompt: %7.1f ms, peak RSS %.0f MB   (target ≤ 400 ms, ≤ 150 MB)\n")
	}
	if want("json") {
		benchJSON()
	}
}

func benchStartup() {
	e := newEnv(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}, Repeat: true, ZeroLatency: true})
	defer e.close()
	var ds []time.Duration
	for i := 0; i < 30; i++ {
		ds = append(ds, e.run("--version").wall)
	}
	fmt.Printf("relay --version:                        %7.1f ms   (target ≤ 10 ms)\n", ms(median(ds)))
	ds = ds[:0]
	var walls []time.Duration
	for i := 0; i < 15; i++ {
		r := e.run("-p", "--no-session", model, "hi")
		ds = append(ds, r.first)
		walls = append(walls, r.wall)
	}
	fmt.Printf("launch to first model request:          %7.1f ms   (target ≤ 50 ms; whole run %.1f ms)\n", ms(median(ds)), ms(median(walls)))
}

// benchMCPStartup is launch to first request with twenty MCP servers
// configured (codemode exposure, none used): their connections start in the
// background, so the figure should match the one without servers. The
// servers are processes that never answer, the worst case for start-up.
func benchMCPStartup() {
	e := newEnv(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}, Repeat: true, ZeroLatency: true})
	defer e.close()
	servers := map[string]any{}
	for i := 0; i < 20; i++ {
		servers[fmt.Sprintf("server%02d", i)] = map[string]any{"command": "sleep", "args": []string{"60"}}
	}
	cfg, _ := json.Marshal(map[string]any{"mcpServers": servers})
	// Runs alternate between the two configurations, so load changes on
	// a shared machine hit both alike.
	var d0, w0s, d20, w20s []time.Duration
	path := filepath.Join(e.agentDir, "mcp.json")
	for i := 0; i < 15; i++ {
		os.Remove(path)
		r := e.run("-p", "--no-session", model, "hi")
		d0, w0s = append(d0, r.first), append(w0s, r.wall)
		os.WriteFile(path, cfg, 0o644)
		r = e.run("-p", "--no-session", model, "hi")
		d20, w20s = append(d20, r.first), append(w20s, r.wall)
	}
	f0, w0, f20, w20 := median(d0), median(w0s), median(d20), median(w20s)
	fmt.Printf("launch to first request, 0 MCP servers:  %7.1f ms   (whole run %.1f ms)\n", ms(f0), ms(w0))
	fmt.Printf("launch to first request, 20 MCP servers: %7.1f ms   (whole run %.1f ms; target: unchanged)\n", ms(f20), ms(w20))
}

func benchLoop() {
	var rs []llmtest.Response
	for i := 0; i < 20; i++ {
		rs = append(rs, llmtest.Response{ToolCalls: []llmtest.Block{{Type: "toolCall", Name: "bash", Args: json.RawMessage(fmt.Sprintf(`{"command":"echo %d"}`, i))}}})
	}
	rs = append(rs, llmtest.Response{Text: "done"})
	var walls []time.Duration
	for i := 0; i < 5; i++ {
		e := newEnv(&llmtest.Script{Responses: rs, ZeroLatency: true})
		walls = append(walls, e.run("-p", model, "loop").wall)
		e.close()
	}
	fmt.Printf("20 bash tool turns (echo i):            %7.1f ms   (target ≤ 500 ms)\n", ms(median(walls)))
}

// benchResume resumes a 50 MB / 20,000-entry session (a compaction every
// compactEvery entries, 0 never) and sends one prompt.
func benchResume(compactEvery int, modelsExtra, format string) {
	e := newEnvModels(&llmtest.Script{Responses: []llmtest.Response{{Text: "resumed"}}, Repeat: true, ZeroLatency: true}, modelsExtra)
	defer e.close()
	var path string
	if *file != "" && compactEvery == 0 {
		path = filepath.Join(e.agentDir, "given.jsonl")
		data, err := os.ReadFile(*file)
		if err == nil {
			err = os.WriteFile(path, data, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "agentbench:", err)
			os.Exit(1)
		}
	} else {
		path = writeBigSession(e.agentDir, e.cwd, 20000, 50<<20, compactEvery)
	}
	st, _ := os.Stat(path)
	var walls, cpus []time.Duration
	var rss float64
	e.replayFrom("-p", "--no-session", model, "warm up")
	for i := 0; i < 3; i++ {
		e.rewind()
		r := e.runRSS("-p", "--session", path, model, "one more")
		walls = append(walls, r.wall)
		cpus = append(cpus, r.cpu)
		if r.rssMB > rss {
			rss = r.rssMB
		}
	}
	fmt.Printf(format, float64(st.Size())/(1<<20), ms(median(walls)), rss)
	fmt.Printf("    (CPU user+sys %.0f ms, load average %s)\n", ms(median(cpus)), loadAverage())
}

func benchJSON() {
	answer := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 2<<20/45+1)[:2<<20]
	e := newEnv(&llmtest.Script{Responses: []llmtest.Response{{Text: answer, ChunkSize: 16}}, ZeroLatency: true})
	defer e.close()
	e.replayFrom("--mode", "json", "--no-session", model, "long answer")
	e.rewind()
	r := e.runRSS("--mode", "json", "--no-session", model, "long answer")
	fmt.Printf("JSON mode, 2 MB answer in 16-byte deltas: %6.1f ms, output %.1f MB, peak RSS %.0f MB   (target ≤ 1 s, ≤ 30 MB)\n", ms(r.wall), float64(r.outLen)/(1<<20), r.rssMB)
}

// loadAverage is the 1-minute load average: wall figures on a loaded
// machine mean little, CPU time still does.
func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// writeBigSession writes a session with n entries totalling about size
// bytes: user / assistant (with a tool call: read, or bash every other turn)
// / tool result turns, with a compaction every compactEvery entries as a
// long real session has (50 MB of text is far more than any context
// window); compactEvery 0 never compacts.
func writeBigSession(agentDir, cwd string, n, size, compactEvery int) string {
	dir := filepath.Join(agentDir, "sessions", "bench")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "2026-01-01T00-00-00-000Z_0192f3a0-0000-7000-8000-00000000beef.jsonl")
	f, _ := os.Create(path)
	defer f.Close()
	w := &bytes.Buffer{}
	fmt.Fprintf(w, `{"type":"session","version":3,"id":"0192f3a0-0000-7000-8000-00000000beef","timestamp":"2026-01-01T00:00:00.000Z","cwd":%q}`+"\n", cwd)
	pad := strings.Repeat("lorem ipsum dolor sit amet ", size/n/27+1)[:size/n]
	parent := "null"
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%08x", i+1)
		ts := `"timestamp":"2026-01-01T00:00:00.000Z"`
		var msg string
		switch i % 3 {
		case 0:
			msg = fmt.Sprintf(`{"role":"user","content":%q,"timestamp":1}`, pad)
		case 1:
			call := `"name":"read","arguments":{"path":"f.go"}`
			if i%2 == 0 {
				call = `"name":"bash","arguments":{"command":"cd pkg && go test ./... -run TestStorage 2>&1 | tail -50"}`
			}
			msg = fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%q},{"type":"toolCall","id":"c%d",%s}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":100,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":110,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1}`, pad, i, call)
		default:
			name := "read"
			if (i-1)%2 == 0 {
				name = "bash"
			}
			msg = fmt.Sprintf(`{"role":"toolResult","toolCallId":"c%d","toolName":%q,"content":[{"type":"text","text":%q}],"isError":false,"timestamp":1}`, i-1, name, pad)
		}
		fmt.Fprintf(w, `{"type":"message","id":%q,"parentId":%s,%s,"message":%s}`+"\n", id, parent, ts, msg)
		parent = `"` + id + `"`
		if compactEvery > 0 && i%compactEvery == compactEvery-1 {
			cid := fmt.Sprintf("c%07x", i)
			keep := fmt.Sprintf("%08x", i-59) // keep the last 60 entries (a user turn start)
			if (i-59)%3 != 0 {
				keep = fmt.Sprintf("%08x", i-59-(i-59)%3+1)
			}
			fmt.Fprintf(w, `{"type":"compaction","id":%q,"parentId":%s,%s,"summary":"## Goal\nbench summary %d","firstKeptEntryId":%q,"tokensBefore":150000}`+"\n", cid, parent, ts, i, keep)
			parent = `"` + cid + `"`
		}
		if w.Len() > 1<<20 {
			f.Write(w.Bytes())
			w.Reset()
		}
	}
	f.Write(w.Bytes())
	return path
}
