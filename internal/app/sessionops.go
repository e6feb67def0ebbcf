package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

// ErrBusy is returned by session operations while the agent works.
var ErrBusy = errors.New("the agent is busy: wait for it to finish or abort first")

func (r *Runtime) idle() error {
	if r.agent.IsRunning() || r.isCompacting() {
		return ErrBusy
	}
	return nil
}

// replaceSession swaps the open session and re-derives model and thinking
// level from its branch.
func (r *Runtime) replaceSession(s *session.Manager, reason hooks.SessionReason) {
	r.mu.Lock()
	old := r.sess
	r.sess = s
	r.mu.Unlock()
	if old != nil && old != s {
		_ = old.Close()
	}
	r.restoreFromBranch(reason)
}

// restoreFromBranch applies the model and thinking level recorded on the
// active branch, then tells the seam the session started or moved.
func (r *Runtime) restoreFromBranch(reason hooks.SessionReason) {
	sess := r.Session()
	ctx := sess.BuildSessionContext()
	hasEntries := sess.LeafID() != ""
	var found *llm.Model
	if ctx.Model != nil && r.cfg.Models != nil {
		found = r.restorableModel(ctx.Model.Provider, ctx.Model.ModelID)
	}
	r.mu.Lock()
	if found != nil {
		r.model = found
	}
	if l, ok := llm.ParseThinkingLevel(ctx.ThinkingLevel); ok && hasEntries {
		r.thinking = l
	}
	if r.model != nil {
		r.thinking = r.model.ClampThinkingLevel(r.thinking)
	}
	r.mu.Unlock()
	e := &hooks.SessionChange{Reason: reason, Session: sess, File: sess.SessionFile()}
	if reason == hooks.ReasonTree {
		r.hooks.SessionTree.Notify(context.Background(), e)
		return
	}
	r.hooks.SessionStart.Notify(context.Background(), e)
}

// NewSession starts a fresh session in the same directory.
func (r *Runtime) NewSession(parent string) error {
	if err := r.idle(); err != nil {
		return err
	}
	if err := r.allow(&r.hooks.BeforeSwitch, hooks.ReasonNew, ""); err != nil {
		return err
	}
	cur := r.Session()
	var s *session.Manager
	var err error
	if cur.IsPersisted() {
		s, err = session.Create(r.cfg.Cwd, cur.SessionDir(), session.CreateOptions{ParentSession: parent})
	} else {
		s = session.InMemory(r.cfg.Cwd)
	}
	if err != nil {
		return err
	}
	r.replaceSession(s, hooks.ReasonNew)
	r.recordModel()
	return nil
}

// recordModel writes the current model and thinking level into a new
// session so resuming it restores them.
func (r *Runtime) recordModel() {
	if m := r.currentModel(); m != nil {
		_, _ = r.Session().AppendModelChange(m.Provider, m.ID)
		_, _ = r.Session().AppendThinkingLevelChange(string(r.thinkingLevel()))
	}
}

// SwitchSession opens another session file.
func (r *Runtime) SwitchSession(path string) error {
	if err := r.idle(); err != nil {
		return err
	}
	if err := r.allow(&r.hooks.BeforeSwitch, hooks.ReasonResume, ""); err != nil {
		return err
	}
	s, err := session.Open(path, "")
	if err != nil {
		return err
	}
	r.replaceSession(s, hooks.ReasonResume)
	return nil
}

// SetSessionName records a display name ("" clears it).
func (r *Runtime) SetSessionName(name string) error {
	name = strings.TrimSpace(name)
	if _, err := r.Session().AppendSessionInfo(name); err != nil {
		return err
	}
	ev := agent.Event{Type: agent.SessionInfoChanged}
	if n := r.Session().Name(); n != "" {
		ev.Name = &n
	}
	r.emit(ev)
	return nil
}

// ForkMessage is a user message that /fork can start from.
type ForkMessage struct {
	EntryID string `json:"entryId"`
	Text    string `json:"text"`
}

// ForkMessages lists the user messages of s's active branch.
func ForkMessages(s *session.Manager) []ForkMessage {
	var out []ForkMessage
	for _, e := range s.Branch("") {
		if e.Type != session.TypeMessage || e.Role() != llm.RoleUser {
			continue
		}
		m, err := e.Message()
		if err != nil {
			continue
		}
		out = append(out, ForkMessage{EntryID: e.ID, Text: agent.MessageText(m)})
	}
	return out
}

// Fork creates a new session holding the branch up to (not including) the
// user message entryID and returns that message's text for the editor.
func (r *Runtime) Fork(entryID string) (string, error) {
	if err := r.idle(); err != nil {
		return "", err
	}
	if err := r.allow(&r.hooks.BeforeFork, hooks.ReasonFork, entryID); err != nil {
		return "", err
	}
	s := r.Session()
	e := s.Entry(entryID)
	if e == nil || e.Type != session.TypeMessage || e.Role() != llm.RoleUser {
		return "", fmt.Errorf("fork: %s is not a user message", entryID)
	}
	m, err := e.Message()
	if err != nil {
		return "", fmt.Errorf("fork: %w", err)
	}
	text := agent.MessageText(m)
	if e.ParentID == "" {
		// Forking at the first message: a new empty session that names its parent.
		return text, r.NewSession(s.SessionFile())
	}
	if _, err := s.CreateBranchedSession(e.ParentID); err != nil {
		return "", err
	}
	r.restoreFromBranch(hooks.ReasonFork)
	return text, nil
}

// Clone copies the active branch into a new session.
func (r *Runtime) Clone() error {
	if err := r.idle(); err != nil {
		return err
	}
	if err := r.allow(&r.hooks.BeforeFork, hooks.ReasonFork, r.Session().LeafID()); err != nil {
		return err
	}
	if _, err := r.Session().Clone(); err != nil {
		return err
	}
	r.restoreFromBranch(hooks.ReasonFork)
	return nil
}

// NavigateResult tells the front end what to do after /tree navigation.
type NavigateResult struct {
	EditorText string // text of a selected user message, for re-editing
	Summarized bool
}

// NavigateTree moves the leaf to targetID. Selecting a user message moves
// to its parent and returns its text; with summarize, the abandoned branch
// is summarized into a branch_summary entry.
func (r *Runtime) NavigateTree(ctx context.Context, targetID string, summarize bool, instructions string) (NavigateResult, error) {
	if err := r.idle(); err != nil {
		return NavigateResult{}, err
	}
	if err := r.allow(&r.hooks.BeforeTree, hooks.ReasonTree, targetID); err != nil {
		return NavigateResult{}, err
	}
	s := r.Session()
	target := s.Entry(targetID)
	if target == nil {
		return NavigateResult{}, fmt.Errorf("tree: entry %q does not exist", targetID)
	}
	var res NavigateResult
	dest := targetID
	if target.Type == session.TypeMessage && target.Role() == llm.RoleUser {
		if m, err := target.Message(); err == nil {
			res.EditorText = agent.MessageText(m)
		}
		dest = target.ParentID
	}
	oldLeaf := s.LeafID()
	if summarize && oldLeaf != "" {
		abandoned := abandonedEntries(s, oldLeaf, dest)
		if len(abandoned) > 0 {
			summary, details, usage, err := r.summarizeBranch(ctx, abandoned, instructions)
			switch {
			case err == nil:
				if _, err := s.BranchWithSummary(dest, summary, details, false, &usage); err != nil {
					return res, err
				}
				res.Summarized = true
				r.restoreFromBranch(hooks.ReasonTree)
				return res, nil
			case errors.Is(err, compaction.ErrNoContent):
			default:
				return res, err
			}
		}
	}
	if dest == "" {
		s.ResetLeaf()
	} else if err := s.SetLeaf(dest); err != nil {
		return res, err
	}
	r.restoreFromBranch(hooks.ReasonTree)
	return res, nil
}

// abandonedEntries are the entries from the old leaf up to (excluding) the
// deepest common ancestor with dest, oldest first.
func abandonedEntries(s *session.Manager, oldLeaf, dest string) []*session.Entry {
	onDest := map[string]bool{}
	if dest != "" {
		for _, e := range s.Branch(dest) {
			onDest[e.ID] = true
		}
	}
	old := s.Branch(oldLeaf)
	i := len(old)
	for i > 0 && !onDest[old[i-1].ID] {
		i--
	}
	return old[i:]
}

func (r *Runtime) summarizeBranch(ctx context.Context, entries []*session.Entry, instructions string) (string, compaction.FileDetails, llm.Usage, error) {
	model := r.currentModel()
	if model == nil {
		return "", compaction.FileDetails{}, llm.Usage{}, ErrNoModel
	}
	var its []compaction.Item
	var seed *compaction.FileDetails
	for _, e := range entries {
		it := compaction.Item{EntryID: e.ID, Type: e.Type}
		switch e.Type {
		case session.TypeMessage:
			if m, err := e.Message(); err == nil {
				it.Messages = []llm.Message{m}
			}
		case session.TypeCompaction:
			if c := e.Compaction(); c != nil {
				it.Messages = []llm.Message{&llm.CompactionSummaryMessage{Summary: c.Summary, TokensBefore: c.TokensBefore}}
			}
		case session.TypeBranchSummary:
			if b := e.BranchSummary(); b != nil {
				from := b.FromID
				it.Messages = []llm.Message{&llm.BranchSummaryMessage{Summary: b.Summary, FromID: &from}}
				if !b.FromHook {
					if d := compaction.ParseDetails(b.Details); d != nil {
						if seed == nil {
							seed = &compaction.FileDetails{}
						}
						seed.ReadFiles = append(seed.ReadFiles, d.ReadFiles...)
						seed.ModifiedFiles = append(seed.ModifiedFiles, d.ModifiedFiles...)
					}
				}
			}
		case session.TypeCustomMessage:
			if c := e.CustomMessage(); c != nil {
				it.Messages = []llm.Message{&llm.CustomMessage{CustomType: c.CustomType, Content: c.Content}}
			}
		}
		its = append(its, it)
	}
	reserve := r.cfg.BranchReserve
	if reserve == 0 {
		reserve = 16384
	}
	return compaction.SummarizeBranch(ctx, r.summarizer("branchSummary", ""), compaction.BranchRequest{
		Model: model, SessionID: r.Session().SessionID(), ReserveTokens: reserve, Items: its,
		CustomInstructions: instructions, Seed: seed,
	}, r.now())
}
