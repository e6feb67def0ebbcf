// Command extbench measures what extensions cost at start-up: the time
// from launching relay to its first model request, with no extension and
// with five (the e2e test extensions: a tool, a tool_call gate, an input
// transform, a system-prompt change and provider payload hooks). The first
// run with extensions installs the TypeScript loader and fills its cache;
// it is not counted. Run it through bench/ext.sh.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

var (
	relay = flag.String("relay", "./relay", "relay binary")
	runs  = flag.Int("runs", 10, "measured runs per case")
)

func main() {
	flag.Parse()
	root, err := os.MkdirTemp("", "relay-extbench")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(root)
	agentDir, cwd := filepath.Join(root, "agent"), filepath.Join(root, "proj")
	os.MkdirAll(agentDir, 0o755)
	os.MkdirAll(cwd, 0o755)
	fake := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}, Repeat: true, ZeroLatency: true})
	defer fake.Close()
	var mu sync.Mutex
	var first time.Time
	fake.OnRequest(func(llmtest.Request) {
		mu.Lock()
		if first.IsZero() {
			first = time.Now()
		}
		mu.Unlock()
	})
	os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(fmt.Sprintf(`{"providers":{"anthropic":{"baseUrl":%q}}}`, fake.URL)), 0o644)
	exts, _ := filepath.Abs("cmd/relay/testdata/extensions")
	five := []string{}
	for _, e := range []string{"greet.ts", "gate.ts", "transform.ts", "sysprompt.ts", "payload.ts"} {
		five = append(five, "-e", filepath.Join(exts, e))
	}
	// launch returns the wall time to the first request and the CPU time
	// (user+system) of relay and the host it waited for: on a loaded
	// machine the second is the figure that means something.
	launch := func(extra []string) (time.Duration, time.Duration) {
		mu.Lock()
		first = time.Time{}
		mu.Unlock()
		args := append([]string{"-p", "--model=anthropic/claude-sonnet-4-5", "--no-session"}, extra...)
		c := exec.Command(*relay, append(args, "hi")...)
		c.Dir = cwd
		c.Env = append(os.Environ(), "RELAY_CODING_AGENT_DIR="+agentDir, "ANTHROPIC_API_KEY=bench", "RELAY_OFFLINE=1")
		start := time.Now()
		if out, err := c.CombinedOutput(); err != nil {
			fail(fmt.Errorf("relay: %v\n%s", err, out))
		}
		cpu := c.ProcessState.UserTime() + c.ProcessState.SystemTime()
		mu.Lock()
		defer mu.Unlock()
		return first.Sub(start), cpu
	}
	launch(five) // installs jiti, fills the transpile cache
	// On a shared machine the wall times follow the load: print it.
	loadavg := func(when string) {
		if b, err := os.ReadFile("/proc/loadavg"); err == nil {
			fmt.Printf("load average %s: %s (%d CPUs)\n", when, strings.Join(strings.Fields(string(b))[:3], " "), runtime.NumCPU())
		}
	}
	loadavg("before")
	defer loadavg("after")
	for _, tc := range []struct {
		name string
		args []string
	}{{"no extension", nil}, {"five extensions", five}} {
		var ds, cs []time.Duration
		for i := 0; i < *runs; i++ {
			d, c := launch(tc.args)
			ds, cs = append(ds, d), append(cs, c)
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		sort.Slice(cs, func(i, j int) bool { return cs[i] < cs[j] })
		fmt.Printf("%-16s launch to first request median %6.1f ms (min %6.1f, max %6.1f); CPU of the whole run median %6.1f ms; %d runs\n",
			tc.name+":", ms(ds[len(ds)/2]), ms(ds[0]), ms(ds[len(ds)-1]), ms(cs[len(cs)/2]), len(ds))
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "extbench:", err)
	os.Exit(1)
}
