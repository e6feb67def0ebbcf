package ext

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The host's side of the protocol, tested in Node (node:test) by driving
// host/host.mjs over its fds: testdata/hostproto.test.mjs. Skipped without
// node and npm (CI installs them).
func TestHostProtocolNode(t *testing.T) {
	dir := testAgentDir(t)
	jiti, err := ensureJiti(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("host", "host.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "--test", "--test-reporter=spec", filepath.Join("testdata", "hostproto.test.mjs"))
	cmd.Env = append(os.Environ(), "RELAY_TEST_HOST="+script, "RELAY_TEST_JITI="+jiti)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	if testing.Verbose() {
		t.Logf("%s", out)
	}
}
