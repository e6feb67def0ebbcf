package laya

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fakeDocker is a docker executable that records its calls in calls.log
// and keeps container/image state as files in its directory.
const fakeDocker = `#!/bin/sh
D="$(dirname "$0")"
echo "$*" >> "$D/calls.log"
case "$1" in
version)
  if [ -f "$D/daemon-down" ]; then echo "Cannot connect to the Docker daemon" >&2; exit 1; fi
  echo 27.3.1 ;;
container)
  if [ -f "$D/container" ]; then cat "$D/container"; else echo "Error: No such container: relay-laya" >&2; exit 1; fi ;;
image)
  case "$2" in
  inspect) if [ -f "$D/image" ]; then echo sha256:0123; else echo "Error: No such image" >&2; exit 1; fi ;;
  ls) cat "$D/image"; echo "ghcr.io/eltonssouza/relay-laya:v0-cpu-000000000000" ;;
  esac ;;
pull)
  echo "0123456789ab: Pulling fs layer"
  echo "0123456789ab: Pull complete"
  echo "$2" > "$D/image" ;;
start)
  sed 's/^false/true/' "$D/container" > "$D/c2" && mv "$D/c2" "$D/container"; touch "$D/up" ;;
stop)
  sed 's/^true/false/' "$D/container" > "$D/c2" && mv "$D/c2" "$D/container"; rm -f "$D/up" ;;
rm)
  if [ "$3" = relay-laya ]; then rm -f "$D/container" "$D/up"; fi ;;
logs) echo "serve.py: model not found" ;;
rmi) ;;
run)
  case "$*" in
  *"--detach"*)
    labels=""; prev=""
    for a in "$@"; do
      if [ "$prev" = "--label" ]; then labels="$labels${labels:+,}\"${a%%=*}\":\"${a#*=}\""; fi
      prev="$a"
    done
    if [ -f "$D/crash" ]; then echo "false {$labels}" > "$D/container"; exit 0; fi
    echo "true {$labels}" > "$D/container"; touch "$D/up" ;;
  *"python -c"*) [ -f "$D/gpu" ] ;;
  *"train.py"*)
    n=$(cat "$D/train-count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$D/train-count"
    echo 'PROGRESS {"phase":"train","epoch":1,"epochs":2,"done":0.5,"eta_s":30,"device":"cuda","model":"x"}' >&2
    cat "$D/train-$n.json" ;;
  esac ;;
esac
exit 0
`

type dockerEnv struct {
	dir  string
	home string
	d    *Docker
}

func newDockerEnv(t *testing.T, withDocker bool) *dockerEnv {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake docker is a shell script")
	}
	dir := t.TempDir()
	if withDocker {
		if err := os.WriteFile(filepath.Join(dir, "docker"), []byte(fakeDocker), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+"/usr/bin"+string(os.PathListSeparator)+"/bin")
	home := t.TempDir()
	d := NewDocker(home, "http://127.0.0.1:8737/v1", "", "1.2.3")
	d.GOOS = "linux"
	d.HealthInterval, d.HealthWait = time.Millisecond, 200*time.Millisecond
	d.Health = func(context.Context) error {
		if _, err := os.Stat(filepath.Join(dir, "up")); err != nil {
			return errors.New("connection refused")
		}
		return nil
	}
	return &dockerEnv{dir: dir, home: home, d: d}
}

func (e *dockerEnv) calls(t *testing.T) []string {
	b, _ := os.ReadFile(filepath.Join(e.dir, "calls.log"))
	os.Remove(filepath.Join(e.dir, "calls.log"))
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func (e *dockerEnv) touch(name, content string) {
	os.WriteFile(filepath.Join(e.dir, name), []byte(content), 0o644)
}

func TestDockerInstallSequence(t *testing.T) {
	e := newDockerEnv(t, true)
	var progress []string
	e.d.Progress = func(s string) { progress = append(progress, s) }
	if err := e.d.Ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	img := DefaultImage("1.2.3", "cpu")
	if !strings.HasPrefix(img, "ghcr.io/eltonssouza/relay-laya:v1-cpu-") || len(img) != len("ghcr.io/eltonssouza/relay-laya:v1-cpu-")+12 {
		t.Errorf("image %s", img)
	}
	labels := "--label relay.laya.image=" + img + " --label relay.laya.model=/opt/laya/model --label relay.laya.address=127.0.0.1:8737 "
	want := []string{
		"version --format {{.Server.Version}}",
		"container inspect --format {{json .State.Running}} {{json .Config.Labels}} relay-laya",
		"image inspect --format {{.Id}} " + img,
		"pull " + img,
		"run --detach --name relay-laya --restart unless-stopped --publish 127.0.0.1:8737:8000 --volume relay-laya-models:/data/models " +
			labels + img + " python /opt/laya/serve.py --model /opt/laya/model --host 0.0.0.0 --port 8000",
		"container inspect --format {{json .State.Running}} {{json .Config.Labels}} relay-laya",
		"image ls ghcr.io/eltonssouza/relay-laya --format {{.Repository}}:{{.Tag}}",
		"rmi ghcr.io/eltonssouza/relay-laya:v0-cpu-000000000000",
	}
	got := e.calls(t)
	// The health poll may inspect the container once while it starts.
	filtered := []string{}
	for i, c := range got {
		if i > 0 && c == got[i-1] {
			continue
		}
		filtered = append(filtered, c)
	}
	if strings.Join(filtered, "\n") != strings.Join(want, "\n") && strings.Join(filtered, "\n") != strings.Join(append(want[:5:5], want[6:]...), "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st, _ := e.d.State(); st != StateReady {
		t.Errorf("state %s", st)
	}
	if !strings.Contains(strings.Join(progress, "|"), "laya: downloading the image (1/1 layers)") {
		t.Errorf("progress %q", progress)
	}
	// Running with the same labels: nothing to do but check.
	if err := e.d.Ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, c := range e.calls(t) {
		if strings.HasPrefix(c, "run ") || strings.HasPrefix(c, "pull") || strings.HasPrefix(c, "rm ") {
			t.Errorf("unexpected call on a running server: %s", c)
		}
	}
	// Stopped: start it again.
	if err := e.d.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.calls(t)
	if err := e.d.Ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c := strings.Join(e.calls(t), "|"); !strings.Contains(c, "|start relay-laya|") || strings.Contains(c, "run --detach") {
		t.Errorf("restart calls %s", c)
	}
}

func TestDockerMissing(t *testing.T) {
	e := newDockerEnv(t, false)
	err := e.d.Ensure(context.Background())
	if st, p := e.d.State(); err == nil || st != StateNoDocker || p != WhyNotRunning(false) || !strings.Contains(p, "Docker is not installed") {
		t.Errorf("state %s %q err %v", st, p, err)
	}
	e2 := newDockerEnv(t, true)
	e2.touch("daemon-down", "")
	_ = e2.d.Ensure(context.Background())
	if st, p := e2.d.State(); st != StateNoDocker || !strings.Contains(p, "daemon is not running") {
		t.Errorf("daemon down: %s %q", st, p)
	}
	// Remote servers are never managed: health only, no docker calls.
	e3 := newDockerEnv(t, true)
	e3.d.BaseURL = "https://laya.example.com/v1"
	e3.d.Health = func(context.Context) error { return nil }
	if err := e3.d.Ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e3.dir, "calls.log")); err == nil {
		t.Error("docker called for a remote server")
	}
}

func TestDockerForeignServerAndCrash(t *testing.T) {
	e := newDockerEnv(t, true)
	e.d.Health = func(context.Context) error { return nil }
	if err := e.d.Ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c := strings.Join(e.calls(t), "|"); strings.Contains(c, "run ") || strings.Contains(c, "pull") {
		t.Errorf("a server already answering was replaced: %s", c)
	}
	e2 := newDockerEnv(t, true)
	e2.touch("image", DefaultImage("1.2.3", "cpu"))
	e2.touch("crash", "")
	err := e2.d.Ensure(context.Background())
	if err == nil || !strings.Contains(err.Error(), "serve.py: model not found") {
		t.Errorf("crash err %v", err)
	}
	if st, _ := e2.d.State(); st != StateFailed {
		t.Errorf("state %s", st)
	}
}

func TestDockerGPUAndImageOverride(t *testing.T) {
	e := newDockerEnv(t, true)
	os.WriteFile(filepath.Join(e.dir, "nvidia-smi"), []byte("#!/bin/sh\necho GPU 0\n"), 0o755)
	if v := e.d.Variant(context.Background()); v != "cuda" {
		t.Errorf("variant %s", v)
	}
	if img := e.d.ImageName(context.Background()); !strings.Contains(img, ":v1-cuda-") {
		t.Errorf("image %s", img)
	}
	e.d.Image = "relay-laya:dev"
	if img := e.d.ImageName(context.Background()); img != "relay-laya:dev" {
		t.Errorf("laya.image ignored: %s", img)
	}
	mac := newDockerEnv(t, true)
	os.WriteFile(filepath.Join(mac.dir, "nvidia-smi"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	mac.d.GOOS = "darwin"
	if v := mac.d.Variant(context.Background()); v != "cpu" {
		t.Errorf("macOS variant %s", v)
	}
}

func TestDockerTrainActivateAndUse(t *testing.T) {
	e := newDockerEnv(t, true)
	if _, err := e.d.Train(context.Background(), true); err == nil || !strings.Contains(err.Error(), "/laya learn") {
		t.Errorf("train without session tasks: %v", err)
	}
	learned(t, e.home, Exercise{Request: "Fix the typo", Labels: RuleAssessment("Fix the typo").Labels()})
	if err := e.d.Ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.calls(t)
	e.touch("train-1.json", `{"ok":false,"error":"out_of_memory","message":"CUDA out of memory"}`)
	e.touch("train-2.json", `{"ok":true,"seconds":400,"device":"cuda","rows":{"focus":1},"test":{"candidate":{"n":100,"correct":90},"current":{"n":100,"correct":90}},"focus":{"candidate":{"n":1,"correct":1},"current":{"n":1,"correct":0}}}`)
	var progress []string
	e.d.Progress = func(s string) { progress = append(progress, s) }
	res, err := e.d.Train(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != "local-1" || !res.Activated || e.d.ActiveModel() != "local-1" {
		t.Errorf("result %+v active %s", res, e.d.ActiveModel())
	}
	calls := e.calls(t)
	img := DefaultImage("1.2.3", "cpu")
	train := "run --rm --name relay-laya-train --gpus all --volume relay-laya-models:/data/models --mount type=bind,source=" +
		filepath.Join(e.home, "training") + ",target=/workspace,readonly " + img +
		" python /opt/laya/train.py learn --workspace /workspace --init /opt/laya/model --out /data/models/local-1 --focus-source session"
	joined := strings.Join(calls, "\n")
	if !strings.Contains(joined, "rm --force relay-laya-train\n"+train+"\n"+train+" --micro-batch 1 --grad-accum 16 --low-memory on\n") {
		t.Errorf("train calls:\n%s", joined)
	}
	if !strings.Contains(joined, "rm --force relay-laya\n") || !strings.Contains(joined, "--model /data/models/local-1 --host") {
		t.Errorf("server not restarted on the new model:\n%s", joined)
	}
	if !strings.Contains(strings.Join(progress, "|"), "laya: training train 1/2 (50%, cuda") {
		t.Errorf("progress %q", progress)
	}
	// A worse model is kept but not activated.
	os.Remove(filepath.Join(e.dir, "train-count"))
	e.touch("train-1.json", `{"ok":true,"test":{"candidate":{"n":100,"correct":80},"current":{"n":100,"correct":90}}}`)
	res, err = e.d.Train(context.Background(), false)
	if err != nil || res.Activated || res.Model != "local-2" || e.d.ActiveModel() != "local-1" {
		t.Errorf("worse model: %+v %v active %s", res, err, e.d.ActiveModel())
	}
	// /laya use goes back to the shipped model; unknown names are listed.
	if err := e.d.Use(context.Background(), "nope"); err == nil || !strings.Contains(err.Error(), "v1, local-1, local-2") {
		t.Errorf("use unknown: %v", err)
	}
	if err := e.d.Use(context.Background(), ShippedModel); err != nil || e.d.ActiveModel() != ShippedModel {
		t.Errorf("use v1: %v", err)
	}
}

func TestDockerKeepsActiveAndTwoNewest(t *testing.T) {
	e := newDockerEnv(t, true)
	reg := ModelRegistry{Active: "local-1"}
	for i := 1; i <= 4; i++ {
		reg.Models = append(reg.Models, ModelEntry{Name: "local-" + string(rune('0'+i)), CreatedAt: time.Unix(int64(i), 0).UTC().Format(time.RFC3339Nano)})
	}
	got := e.d.prune(context.Background(), "img", reg)
	names := []string{}
	for _, m := range got.Models {
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "local-1,local-3,local-4" {
		t.Errorf("kept %v", names)
	}
	if c := e.calls(t); len(c) != 1 || c[0] != "run --rm --volume relay-laya-models:/data/models img rm -rf /data/models/local-2" {
		t.Errorf("delete calls %v", c)
	}
}
