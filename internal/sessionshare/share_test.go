package sessionshare

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/config"
)

// ghScript is a fake gh: it appends its arguments to $dir/calls, keeps a
// copy of the uploaded file, and fails `auth status` when $dir/logged-out
// exists and `gist create` when $dir/gist-fails exists.
func ghScript(dir string) string {
	return `echo "$@" >> "` + dir + `/calls"
case "$1 $2" in
"auth status")
	if [ -e "` + dir + `/logged-out" ]; then echo "You are not logged into any GitHub hosts." >&2; exit 1; fi
	exit 0 ;;
"gist create")
	if [ -e "` + dir + `/gist-fails" ]; then echo "HTTP 422: Validation Failed" >&2; exit 1; fi
	for a in "$@"; do last="$a"; done
	/bin/cp "$last" "` + dir + `/uploaded.html"
	echo "- Creating gist session.html" >&2
	echo "https://gist.github.com/octo/0123abcd4567ef"
	exit 0 ;;
esac
exit 2
`
}

func TestShare(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell-script fake gh")
	}
	e := newEnv(t)
	e.seed(t)
	ctx := context.Background()

	t.Setenv("PATH", t.TempDir())
	if _, err := e.f.share(ctx); !errors.Is(err, ErrGHMissing) {
		t.Fatalf("without gh: %v", err)
	}

	bin := t.TempDir()
	fakeCommand(t, bin, "gh", ghScript(bin))
	t.Setenv("PATH", bin)
	t.Setenv("RELAY_SHARE_VIEWER_URL", "")
	e.f.o.Env = config.ReadEnv()

	os.WriteFile(filepath.Join(bin, "logged-out"), nil, 0o644)
	if _, err := e.f.share(ctx); !errors.Is(err, ErrGHNotLoggedIn) {
		t.Fatalf("logged out: %v", err)
	}
	os.Remove(filepath.Join(bin, "logged-out"))

	res, err := e.f.share(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.GistURL != "https://gist.github.com/octo/0123abcd4567ef" || res.GistID != "0123abcd4567ef" || res.ViewerURL != "" {
		t.Errorf("result %+v", res)
	}
	if res.Text() != "Gist: https://gist.github.com/octo/0123abcd4567ef" {
		t.Errorf("text %q", res.Text())
	}
	calls, _ := os.ReadFile(filepath.Join(bin, "calls"))
	lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
	if len(lines) != 3 || lines[1] != "auth status" || !strings.HasPrefix(lines[2], "gist create --public=false ") ||
		!strings.HasSuffix(lines[2], "session.html") {
		t.Errorf("gh calls:\n%s", calls)
	}
	up, _ := os.ReadFile(filepath.Join(bin, "uploaded.html"))
	if !strings.Contains(string(up), "please check the build") {
		t.Error("the uploaded file is not the HTML export")
	}

	t.Setenv("RELAY_SHARE_VIEWER_URL", "https://viewer.example/session/")
	e.f.o.Env = config.ReadEnv()
	res, err = e.f.share(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.ViewerURL != "https://viewer.example/session/#0123abcd4567ef" ||
		res.Text() != "Share URL: https://viewer.example/session/#0123abcd4567ef\nGist: https://gist.github.com/octo/0123abcd4567ef" {
		t.Errorf("viewer: %+v / %q", res, res.Text())
	}

	os.WriteFile(filepath.Join(bin, "gist-fails"), nil, 0o644)
	if _, err := e.f.share(ctx); err == nil || !strings.Contains(err.Error(), "HTTP 422: Validation Failed") {
		t.Errorf("failing gist: %v", err)
	}
}
