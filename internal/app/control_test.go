package app

import (
	"context"
	"testing"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
)

func TestSetRunOptions(t *testing.T) {
	rt, _ := newRuntime(t)
	off, on := false, true
	if err := rt.SetRunOptions(RunOptions{SteeringMode: "sometimes", AutoCompaction: &off}); err == nil {
		t.Fatal("an unknown mode must be refused")
	}
	if st := rt.State(); !st.AutoCompactionEnabled || st.SteeringMode != agent.ModeOneAtATime {
		t.Fatalf("a refused change changed %+v", st)
	}
	if err := rt.SetRunOptions(RunOptions{SteeringMode: agent.ModeAll, AutoCompaction: &off, AutoRetry: &on}); err != nil {
		t.Fatal(err)
	}
	if st := rt.State(); st.AutoCompactionEnabled || st.SteeringMode != agent.ModeAll || st.FollowUpMode != agent.ModeOneAtATime {
		t.Errorf("state %+v", st)
	}
}

// Send records, runs or queues a message past the input handlers; the
// queue comes back from ClearQueue.
func TestSendAndClearQueue(t *testing.T) {
	rt, fc := newRuntime(t, say("seen"))
	rt.hooks.Input.On("t", func(context.Context, *hooks.Input) (hooks.InputResult, error) {
		t.Error("input handlers must not see a sent message")
		return hooks.InputResult{}, nil
	})
	note := &llm.CustomMessage{CustomType: "note", Content: llm.StringContent("recorded"), Timestamp: 1}
	if err := rt.Send(context.Background(), note, DeliverNextTurn); err != nil {
		t.Fatal(err)
	}
	run := &llm.CustomMessage{CustomType: "note", Content: llm.StringContent("run now"), Timestamp: 2}
	if err := rt.Send(context.Background(), run, DeliverNow); err != nil {
		t.Fatal(err)
	}
	if len(fc.Reqs) != 1 || len(fc.Reqs[0].Messages) < 2 {
		t.Fatalf("requests %d", len(fc.Reqs))
	}
	steer := &llm.CustomMessage{CustomType: "note", Content: llm.StringContent("steer"), Timestamp: 3}
	follow := &llm.CustomMessage{CustomType: "note", Content: llm.StringContent("later"), Timestamp: 4}
	_ = rt.Send(context.Background(), steer, DeliverSteer)
	_ = rt.Send(context.Background(), follow, DeliverFollowUp)
	if st := rt.State(); st.PendingMessageCount != 2 {
		t.Errorf("pending %d", st.PendingMessageCount)
	}
	s, f := rt.ClearQueue()
	if len(s) != 1 || s[0] != steer || len(f) != 1 || f[0] != follow || rt.State().PendingMessageCount != 0 {
		t.Errorf("cleared %v %v", s, f)
	}
	if err := rt.Send(context.Background(), note, Delivery(9)); err == nil {
		t.Error("unknown delivery accepted")
	}
}
