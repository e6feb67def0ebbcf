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
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
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

// ModelEntry is one trained model of training/models.json.
type ModelEntry struct {
	Name         string  `json:"name"`
	CreatedAt    string  `json:"createdAt"`
	BasedOn      string  `json:"basedOn"`
	SessionTasks int     `json:"sessionTasks"`
	Test         *Scores `json:"test,omitempty"`
	Session      *Scores `json:"session,omitempty"`
	Seconds      float64 `json:"seconds"`
	Device       string  `json:"device"`
}

// Scores compares the candidate and the current model on one split.
type Scores struct {
	Candidate Score `json:"candidate"`
	Current   Score `json:"current"`
}

// Score is a model's answers on a test set.
type Score struct {
	N           int            `json:"n"`
	Correct     int            `json:"correct"`
	PerQuestion map[string]any `json:"per_question,omitempty"`
}

// Accuracy is correct/n (0 for an empty set).
func (s Score) Accuracy() float64 {
	if s.N == 0 {
		return 0
	}
	return float64(s.Correct) / float64(s.N)
}

// ModelRegistry is training/models.json.
type ModelRegistry struct {
	Active string       `json:"active,omitempty"`
	Models []ModelEntry `json:"models"`
}

func (d *Docker) registryPath() string { return filepath.Join(d.Home, "training", "models.json") }

// Registry reads training/models.json (empty when missing).
func (d *Docker) Registry() ModelRegistry {
	var r ModelRegistry
	if b, err := os.ReadFile(d.registryPath()); err == nil {
		_ = json.Unmarshal(b, &r)
	}
	if r.Models == nil {
		r.Models = []ModelEntry{}
	}
	return r
}

func (d *Docker) saveRegistry(r ModelRegistry) error {
	b, err := marshalIndent(r)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(d.registryPath()), 0o755); err != nil {
		return err
	}
	return os.WriteFile(d.registryPath(), b, 0o644)
}

// activeModelPath is the model the server serves.
func (d *Docker) activeModelPath() string {
	if a := d.Registry().Active; a != "" && a != ShippedModel {
		return "/data/models/" + a
	}
	return shippedPath
}

// ActiveModel is the name of the routing model.
func (d *Docker) ActiveModel() string {
	if a := d.Registry().Active; a != "" {
		return a
	}
	return ShippedModel
}

// Use is /laya use <model>: route with another model, restarting the
// server on it.
func (d *Docker) Use(ctx context.Context, name string) error {
	r := d.Registry()
	names := []string{ShippedModel}
	found := name == ShippedModel
	for _, m := range r.Models {
		names = append(names, m.Name)
		found = found || m.Name == name
	}
	if !found {
		return fmt.Errorf("unknown Laya model %q: known models are %s", name, strings.Join(names, ", "))
	}
	if name == ShippedModel {
		r.Active = ""
	} else {
		r.Active = name
	}
	if err := d.saveRegistry(r); err != nil {
		return err
	}
	return d.Ensure(ctx)
}

// TrainProgress is a PROGRESS line of the trainer.
type TrainProgress struct {
	Phase  string  `json:"phase"`
	Epoch  int     `json:"epoch"`
	Epochs int     `json:"epochs"`
	Done   float64 `json:"done"`
	ETA    float64 `json:"eta_s"`
	Device string  `json:"device"`
	Model  string  `json:"model"`
}

func (p TrainProgress) String() string {
	return fmt.Sprintf("laya: training %s %d/%d (%d%%, %s, about %ds left)", p.Phase, p.Epoch, p.Epochs, int(p.Done*100), p.Device, int(p.ETA))
}

// Training returns the progress of a running training (nil when idle).
func (d *Docker) Training() *TrainProgress {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.training == nil {
		return nil
	}
	p := *d.training
	return &p
}

// TrainOutcome is the trainer's last stdout line.
type TrainOutcome struct {
	OK      bool           `json:"ok"`
	Seconds float64        `json:"seconds"`
	Device  string         `json:"device"`
	Rows    map[string]int `json:"rows"`
	Test    *Scores        `json:"test"`
	Focus   *Scores        `json:"focus"`
	Error   string         `json:"error"`
	Message string         `json:"message"`
}

// TrainResult says what a training did.
type TrainResult struct {
	Model     string
	Activated bool
	Outcome   TrainOutcome
}

// GPUAvailable probes whether containers get a CUDA GPU (CUDA image only).
func (d *Docker) GPUAvailable(ctx context.Context, img string) bool {
	if d.Variant(ctx) != "cuda" {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 120*time.Second)
	defer cancel()
	_, err := d.run()(ctx, nil, d.bin(), "run", "--rm", "--gpus", "all", img, "python", "-c",
		"import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)")
	return err == nil
}

// Train trains a new model from the active one on the session exercises,
// tests it against the current model on the held-out split, and activates
// it unless it answers more than 1% fewer test questions. It keeps the
// active model and the two newest others.
func (d *Docker) Train(ctx context.Context, gpu bool) (*TrainResult, error) {
	rows, err := ReadDataset(DatasetPath(d.Home))
	if err != nil {
		return nil, err
	}
	n := 0
	for _, r := range rows {
		if r.Source == SourceSession {
			n++
		}
	}
	if n == 0 {
		return nil, errors.New("no session tasks to train on yet: run /laya learn first")
	}
	if err := d.checkDocker(ctx); err != nil {
		return nil, err
	}
	img := d.ImageName(ctx)
	if _, err := d.docker(ctx, "image", "inspect", "--format", "{{.Id}}", img); err != nil {
		return nil, fmt.Errorf("the Laya image is not installed yet: run /laya setup")
	}
	reg := d.Registry()
	name := fmt.Sprintf("local-%d", len(reg.Models)+1)
	for _, m := range reg.Models {
		var k int
		if _, err := fmt.Sscanf(m.Name, "local-%d", &k); err == nil && k >= len(reg.Models)+1 {
			name = fmt.Sprintf("local-%d", k+1)
		}
	}
	base := d.activeModelPath()
	_, _ = d.docker(ctx, "rm", "--force", TrainContainer)
	args := []string{"run", "--rm", "--name", TrainContainer}
	if gpu {
		args = append(args, "--gpus", "all")
	}
	args = append(args, "--volume", ModelsVolume+":/data/models",
		"--mount", "type=bind,source="+filepath.Join(d.Home, "training")+",target=/workspace,readonly",
		img, "python", "/opt/laya/train.py", "learn", "--workspace", "/workspace", "--init", base,
		"--out", "/data/models/"+name, "--focus-source", "session")
	outcome, err := d.trainOnce(ctx, args)
	if err == nil && !outcome.OK && outcome.Error == "out_of_memory" {
		outcome, err = d.trainOnce(ctx, append(append([]string(nil), args...), "--micro-batch", "1", "--grad-accum", "16", "--low-memory", "on"))
	}
	if err != nil {
		return nil, err
	}
	if !outcome.OK {
		msg := outcome.Message
		if msg == "" {
			msg = outcome.Error
		}
		return nil, fmt.Errorf("training failed: %s", msg)
	}
	entry := ModelEntry{Name: name, CreatedAt: time.Now().UTC().Format(time.RFC3339Nano), BasedOn: d.ActiveModel(),
		SessionTasks: n, Test: outcome.Test, Session: outcome.Focus, Seconds: outcome.Seconds, Device: outcome.Device}
	reg.Models = append(reg.Models, entry)
	res := &TrainResult{Model: name, Outcome: *outcome}
	if outcome.Test != nil && outcome.Test.Candidate.Accuracy() >= outcome.Test.Current.Accuracy()-0.01 {
		reg.Active = name
		res.Activated = true
	}
	reg = d.prune(ctx, img, reg)
	if err := d.saveRegistry(reg); err != nil {
		return nil, err
	}
	if res.Activated {
		if err := d.Ensure(ctx); err != nil {
			return res, fmt.Errorf("activate %s: %w", name, err)
		}
	}
	return res, nil
}

func (d *Docker) trainOnce(ctx context.Context, args []string) (*TrainOutcome, error) {
	onErr := func(line string) {
		rest, ok := strings.CutPrefix(line, "PROGRESS ")
		if !ok {
			return
		}
		var p TrainProgress
		if json.Unmarshal([]byte(rest), &p) == nil {
			d.mu.Lock()
			d.training = &p
			d.mu.Unlock()
			d.progress(p.String())
		}
	}
	defer func() {
		d.mu.Lock()
		d.training = nil
		d.mu.Unlock()
		d.progress("")
	}()
	out, err := d.run()(ctx, onErr, d.bin(), args...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var o TrainOutcome
	if jerr := json.Unmarshal([]byte(lines[len(lines)-1]), &o); jerr != nil {
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("training: unexpected trainer output %q", lines[len(lines)-1])
	}
	return &o, nil
}

// prune keeps the active model and the two newest others; older ones are
// deleted from the volume.
func (d *Docker) prune(ctx context.Context, img string, reg ModelRegistry) ModelRegistry {
	sort.SliceStable(reg.Models, func(i, j int) bool { return reg.Models[i].CreatedAt > reg.Models[j].CreatedAt })
	var keep []ModelEntry
	others := 0
	for _, m := range reg.Models {
		if m.Name == reg.Active {
			keep = append(keep, m)
			continue
		}
		if others < 2 {
			others++
			keep = append(keep, m)
			continue
		}
		_, _ = d.docker(ctx, "run", "--rm", "--volume", ModelsVolume+":/data/models", img, "rm", "-rf", "/data/models/"+m.Name)
	}
	sort.SliceStable(keep, func(i, j int) bool { return keep[i].CreatedAt < keep[j].CreatedAt })
	reg.Models = keep
	return reg
}

// StopTraining aborts a running training.
func (d *Docker) StopTraining(ctx context.Context) {
	_, _ = d.docker(ctx, "rm", "--force", TrainContainer)
}
