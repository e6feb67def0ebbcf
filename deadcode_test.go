package relay_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoDeadCode runs golang.org/x/tools/cmd/deadcode (a tool dependency
// in go.mod, so `go tool` runs the pinned version offline once modules are
// downloaded) over the whole module with the tests as roots: every
// function of the project's own must be reachable from relay or from a
// test. Functions that only tests reach count as test helpers and stay
// (fakes, exported knobs); `go tool deadcode ./cmd/relay` lists them.
func TestNoDeadCode(t *testing.T) {
	if testing.Short() {
		t.Skip("whole-program analysis")
	}
	out, err := exec.Command("go", "tool", "deadcode", "-test", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("deadcode: %v\n%s", err, out)
	}
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("unreachable functions (delete them, or use them):\n%s", s)
	}
}
