package builtin

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestGrepEngineHelperProcess runs two greps under an address-space limit
// too small for RE2's WebAssembly memory, for TestGrepFallsBackWithoutRE2.
func TestGrepEngineHelperProcess(t *testing.T) {
	dir := os.Getenv("RELAY_GREP_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process for TestGrepFallsBackWithoutRE2")
	}
	// what the process uses now plus 1 GiB: room for Go, not for RE2's 4 GiB
	status, _ := os.ReadFile("/proc/self/status")
	var vmKB uint64
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmSize:" {
			vmKB, _ = strconv.ParseUint(f[1], 10, 64)
		}
	}
	limit := vmKB<<10 + 1<<30
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		t.Fatal(err)
	}
	g, _ := New("grep", Env{Cwd: dir})
	for _, pat := range []string{`hel+o \d+`, `wor[l]d$`} {
		r := g.Execute(context.Background(), []byte(`{"pattern":`+strconv.Quote(pat)+`}`), nil)
		fmt.Printf("%v %q\n", r.IsError, r.Content.PlainText())
	}
}

func TestGrepFallsBackWithoutRE2(t *testing.T) {
	env := newEnv(t)
	writeFile(t, env.Cwd, "a.txt", "hello 1 world\nhellllo 22 there\n")
	cmd := exec.Command(os.Args[0], "-test.run=^TestGrepEngineHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "RELAY_GREP_HELPER_DIR="+env.Cwd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("grep under an address-space limit failed: %v\n%s", err, out)
	}
	want := `false "a.txt:1: hello 1 world\na.txt:2: hellllo 22 there\n\n[The RE2 regex engine could not start (cannot allocate memory); searches use Go's regexp engine, which can be slower on large files]"` + "\n" +
		`false "a.txt:1: hello 1 world"` + "\n"
	if got := strings.TrimSuffix(string(out), "PASS\n"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
