package laya

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Training runs in the relay-laya-train container from the model that
// routes today; the registry of trained models is training/models.json.

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
