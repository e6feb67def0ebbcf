package laya

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"
)

// The Laya server and its trainer run only in Docker, driven through the
// docker CLI: image ghcr.io/eltonssouza/relay-laya:<version>-<cpu|cuda>-
// <hash>, server container relay-laya published on 127.0.0.1 only with
// --restart unless-stopped, trained models in the volume relay-laya-models.

// Docker names.
const (
	ImageRepo       = "ghcr.io/eltonssouza/relay-laya"
	ServerContainer = "relay-laya"
	TrainContainer  = "relay-laya-train"
	ModelsVolume    = "relay-laya-models"
	ShippedModel    = "v1"
	shippedPath     = "/opt/laya/model"
	containerPort   = "8000"
)

// Docker runtime states.
const (
	StateUnknown    = "unknown"
	StateNoDocker   = "no-docker"
	StateInstalling = "installing"
	StateReady      = "ready"
	StateFailed     = "failed"
)

// Command runs one external command. onLine, when set, receives each
// output line (stdout and stderr) as it arrives. A missing executable
// (ENOENT or exit 127) is reported as ErrNotFound.
type Command func(ctx context.Context, onLine func(string), name string, args ...string) (stdout string, err error)

// ErrNotFound marks a missing executable.
var ErrNotFound = errors.New("executable not found")

// lineWriter calls fn with each complete line written to it.
type lineWriter struct {
	mu  *sync.Mutex
	fn  func(string)
	buf []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.fn(strings.TrimRight(string(w.buf[:i]), "\r"))
		w.buf = w.buf[i+1:]
	}
}

func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.fn(string(w.buf))
		w.buf = nil
	}
}

// ExecCommand runs commands with os/exec.
func ExecCommand(ctx context.Context, onLine func(string), name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	var lws []*lineWriter
	if onLine != nil {
		mu := &sync.Mutex{}
		lo, le := &lineWriter{mu: mu, fn: onLine}, &lineWriter{mu: mu, fn: onLine}
		lws = []*lineWriter{lo, le}
		cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, lo), io.MultiWriter(&errb, le)
	}
	err := cmd.Run()
	for _, lw := range lws {
		lw.flush()
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) || (errors.As(err, &ee) && ee.ExitCode() == 127) {
			return out.String(), fmt.Errorf("%s: %w", name, ErrNotFound)
		}
		return out.String(), &CommandError{Name: name, Args: args, Err: err, Output: out.String() + errb.String()}
	}
	return out.String(), nil
}

// CommandError quotes the last output lines of a failed command.
type CommandError struct {
	Name   string
	Args   []string
	Err    error
	Output string
}

func (e *CommandError) Error() string {
	lines := strings.Split(strings.TrimSpace(e.Output), "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	sub := ""
	if len(e.Args) > 0 {
		sub = " " + e.Args[0]
	}
	msg := fmt.Sprintf("%s%s failed: %v", e.Name, sub, e.Err)
	if t := strings.TrimSpace(strings.Join(lines, "\n")); t != "" {
		msg += ": " + t
	}
	return msg
}

// Docker manages the Laya containers.
type Docker struct {
	Bin            string // "docker"
	Image          string // laya.image; "" = DefaultImage(Version, variant)
	Version        string // relay version
	BaseURL        string
	Home           string // <agentDir>/laya
	Run            Command
	GOOS           string
	HealthInterval time.Duration // 1 s
	HealthWait     time.Duration // 180 s
	CmdTimeout     time.Duration // 60 s
	PullTimeout    time.Duration // 60 min
	Health         func(ctx context.Context) error
	Progress       func(string)

	mu       sync.Mutex
	state    string
	problem  string
	flight   chan struct{}
	variant  string
	training *TrainProgress
}

// NewDocker returns a runtime with the documented defaults.
func NewDocker(home, baseURL, image, version string) *Docker {
	d := &Docker{Bin: "docker", Image: image, Version: version, BaseURL: baseURL, Home: home}
	d.Health = func(ctx context.Context) error {
		_, err := (&Client{BaseURL: d.BaseURL}).Health(ctx)
		return err
	}
	return d
}

func (d *Docker) run() Command {
	if d.Run != nil {
		return d.Run
	}
	return ExecCommand
}

func (d *Docker) bin() string {
	if d.Bin == "" {
		return "docker"
	}
	return d.Bin
}

func orDefault(v, def time.Duration) time.Duration {
	if v <= 0 {
		return def
	}
	return v
}

func (d *Docker) docker(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, orDefault(d.CmdTimeout, 60*time.Second))
	defer cancel()
	return d.run()(ctx, nil, d.bin(), args...)
}

func (d *Docker) progress(s string) {
	if d.Progress != nil {
		d.Progress(s)
	}
}

// State returns the runtime state and the last problem.
func (d *Docker) State() (string, string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state == "" {
		return StateUnknown, d.problem
	}
	return d.state, d.problem
}

// Busy reports whether the server is being installed (the rules answer
// meanwhile).
func (d *Docker) Busy() (bool, string) {
	st, _ := d.State()
	return st == StateInstalling, ""
}

func (d *Docker) set(state, problem string) {
	d.mu.Lock()
	d.state, d.problem = state, problem
	d.mu.Unlock()
}

// Variant is cuda when an NVIDIA GPU answers nvidia-smi (not on macOS),
// else cpu.
func (d *Docker) Variant(ctx context.Context) string {
	d.mu.Lock()
	v := d.variant
	d.mu.Unlock()
	if v != "" {
		return v
	}
	v = "cpu"
	goos := d.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	if goos != "darwin" {
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		if _, err := d.run()(c, nil, "nvidia-smi", "-L"); err == nil {
			v = "cuda"
		}
		cancel()
	}
	d.mu.Lock()
	d.variant = v
	d.mu.Unlock()
	return v
}

// DefaultImage is the release image of a relay version. The tag ends in a
// hash of what the image is built from; relay stands its own version in for
// the build context it does not ship, so each version runs its own image.
func DefaultImage(version, variant string) string {
	sum := sha256.Sum256([]byte("relay-laya\x00" + version + "\x00" + ShippedModel + "\x00"))
	return fmt.Sprintf("%s:%s-%s-%s", ImageRepo, ShippedModel, variant, hex.EncodeToString(sum[:])[:12])
}

// ImageName is laya.image or the release image for this machine.
func (d *Docker) ImageName(ctx context.Context) string {
	if d.Image != "" {
		return d.Image
	}
	return DefaultImage(d.Version, d.Variant(ctx))
}

// publishAddr is the host side of --publish: 127.0.0.1:<port>, or
// [::1]:<port> when the URL uses it.
func (d *Docker) publishAddr() (string, error) {
	u, err := url.Parse(d.BaseURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("invalid laya.baseUrl %q", d.BaseURL)
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	if u.Hostname() == "::1" {
		return "[::1]:" + port, nil
	}
	return "127.0.0.1:" + port, nil
}

// WhyNotRunning is the single message when Docker is missing or stopped.
func WhyNotRunning(installed bool) string {
	if !installed {
		return "Laya is not running: Docker is not installed. Routing uses keyword rules. Install Docker Desktop (Windows, macOS) or Docker Engine (Linux) from https://docs.docker.com/get-started/get-docker/ and start it; the next relay start installs Laya (or run /laya setup)."
	}
	return "Laya is not running: the Docker daemon is not running. Routing uses keyword rules. Start Docker; the next relay start installs Laya (or run /laya setup)."
}

// checkDocker reports whether the docker CLI and daemon answer.
func (d *Docker) checkDocker(ctx context.Context) error {
	_, err := d.docker(ctx, "version", "--format", "{{.Server.Version}}")
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrNotFound) {
		d.set(StateNoDocker, WhyNotRunning(false))
	} else {
		d.set(StateNoDocker, WhyNotRunning(true))
	}
	_, p := d.State()
	return errors.New(p)
}

type containerInfo struct {
	exists  bool
	running bool
	labels  map[string]string
}

func (d *Docker) inspect(ctx context.Context) containerInfo {
	out, err := d.docker(ctx, "container", "inspect", "--format", "{{json .State.Running}} {{json .Config.Labels}}", ServerContainer)
	if err != nil {
		return containerInfo{}
	}
	running, labels, _ := strings.Cut(strings.TrimSpace(out), " ")
	ci := containerInfo{exists: true, running: running == "true", labels: map[string]string{}}
	_ = json.Unmarshal([]byte(labels), &ci.labels)
	return ci
}

// Ensure installs and starts the server (single flight): image present,
// relay-laya running the active model, /health answering. A server that
// answers with no relay-laya container is used as is (after the
// decisions check).
func (d *Docker) Ensure(ctx context.Context) error {
	d.mu.Lock()
	if f := d.flight; f != nil {
		d.mu.Unlock()
		select {
		case <-f:
		case <-ctx.Done():
			return ctx.Err()
		}
		st, p := d.State()
		if st != StateReady {
			return errors.New(p)
		}
		return nil
	}
	f := make(chan struct{})
	d.flight = f
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.flight = nil
		d.mu.Unlock()
		close(f)
	}()
	err := d.ensure(ctx)
	if err != nil {
		if st, _ := d.State(); st != StateNoDocker {
			d.set(StateFailed, err.Error())
		}
		d.progress("")
		return err
	}
	d.set(StateReady, "")
	d.progress("")
	return nil
}

func (d *Docker) ensure(ctx context.Context) error {
	if !IsLocalURL(d.BaseURL) {
		// relay manages a container only for a local laya.baseUrl.
		return d.Health(ctx)
	}
	if err := d.checkDocker(ctx); err != nil {
		return err
	}
	d.set(StateInstalling, "")
	ci := d.inspect(ctx)
	if !ci.exists {
		if err := d.Health(ctx); err == nil {
			return nil // someone else's server on the port, already checked
		} else if _, foreign := err.(*ForeignServerError); foreign {
			return err
		}
	}
	img := d.ImageName(ctx)
	if _, err := d.docker(ctx, "image", "inspect", "--format", "{{.Id}}", img); err != nil {
		if err := d.pull(ctx, img); err != nil {
			return err
		}
	}
	addr, err := d.publishAddr()
	if err != nil {
		return err
	}
	model := d.activeModelPath()
	want := map[string]string{"relay.laya.image": img, "relay.laya.model": model, "relay.laya.address": addr}
	same := ci.exists
	for k, v := range want {
		if ci.labels[k] != v {
			same = false
		}
	}
	switch {
	case same && ci.running:
	case same:
		d.progress("laya: starting the server")
		if _, err := d.docker(ctx, "start", ServerContainer); err != nil {
			return err
		}
	default:
		d.progress("laya: starting the server")
		if ci.exists {
			if _, err := d.docker(ctx, "rm", "--force", ServerContainer); err != nil {
				return err
			}
		}
		args := []string{"run", "--detach", "--name", ServerContainer, "--restart", "unless-stopped",
			"--publish", addr + ":" + containerPort, "--volume", ModelsVolume + ":/data/models",
			"--label", "relay.laya.image=" + img, "--label", "relay.laya.model=" + model, "--label", "relay.laya.address=" + addr,
			img, "python", "/opt/laya/serve.py", "--model", model, "--host", "0.0.0.0", "--port", containerPort}
		if _, err := d.docker(ctx, args...); err != nil {
			// Another relay may have created it first: use theirs.
			if !d.inspect(ctx).exists {
				return err
			}
		}
	}
	if err := d.waitHealthy(ctx); err != nil {
		return err
	}
	d.pruneImages(ctx, img)
	return nil
}

var pullLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([0-9a-f]{12}): (Pulling fs layer|Already exists|Download complete|Pull complete)`)
})

func (d *Docker) pull(ctx context.Context, img string) error {
	ctx, cancel := context.WithTimeout(ctx, orDefault(d.PullTimeout, 60*time.Minute))
	defer cancel()
	layers := map[string]string{}
	report := func(line string) {
		m := pullLine().FindStringSubmatch(line)
		if m == nil {
			return
		}
		layers[m[1]] = m[2]
		done := 0
		for _, s := range layers {
			if s == "Already exists" || s == "Pull complete" {
				done++
			}
		}
		d.progress(fmt.Sprintf("laya: downloading the image (%d/%d layers)", done, len(layers)))
	}
	d.progress("laya: downloading the image")
	_, err := d.run()(ctx, report, d.bin(), "pull", img)
	return err
}

func (d *Docker) waitHealthy(ctx context.Context) error {
	d.progress("laya: waiting for the server")
	deadline := time.Now().Add(orDefault(d.HealthWait, 180*time.Second))
	tick := orDefault(d.HealthInterval, time.Second)
	for {
		if err := d.Health(ctx); err == nil {
			return nil
		} else if _, foreign := err.(*ForeignServerError); foreign {
			return err
		}
		if ci := d.inspect(ctx); ci.exists && !ci.running {
			logs, _ := d.docker(ctx, "logs", "--tail", "5", ServerContainer)
			return fmt.Errorf("the relay-laya container stopped: %s", strings.TrimSpace(logs))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the Laya server did not answer within %s", orDefault(d.HealthWait, 180*time.Second))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(tick):
		}
	}
}

// pruneImages removes other tags of the image repository.
func (d *Docker) pruneImages(ctx context.Context, keep string) {
	repo := keep
	if i := strings.LastIndex(keep, ":"); i > strings.LastIndex(keep, "/") {
		repo = keep[:i]
	}
	out, err := d.docker(ctx, "image", "ls", repo, "--format", "{{.Repository}}:{{.Tag}}")
	if err != nil {
		return
	}
	for _, t := range strings.Fields(out) {
		if t != keep && !strings.HasSuffix(t, ":<none>") {
			_, _ = d.docker(ctx, "rmi", t)
		}
	}
}

// Stop is /laya stop.
func (d *Docker) Stop(ctx context.Context) error {
	if err := d.checkDocker(ctx); err != nil {
		return err
	}
	_, err := d.docker(ctx, "stop", ServerContainer)
	if err == nil {
		d.set(StateUnknown, "")
	}
	return err
}
