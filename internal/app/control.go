package app

import (
	"context"
	"fmt"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/llm"
)

// RunOptions are the run settings a front end may change while relay
// runs (RPC set_steering_mode, set_follow_up_mode, set_auto_retry,
// set_auto_compaction). A zero field keeps the current value.
type RunOptions struct {
	// SteeringMode and FollowUpMode are agent.ModeAll or
	// agent.ModeOneAtATime.
	SteeringMode   string
	FollowUpMode   string
	AutoRetry      *bool
	AutoCompaction *bool
}

// SetRunOptions changes the run settings; an unknown mode is an error and
// changes nothing.
func (r *Runtime) SetRunOptions(o RunOptions) error {
	for _, m := range []string{o.SteeringMode, o.FollowUpMode} {
		if m != "" && m != agent.ModeAll && m != agent.ModeOneAtATime {
			return fmt.Errorf("run options: invalid mode %q (expected %q or %q)", m, agent.ModeAll, agent.ModeOneAtATime)
		}
	}
	if o.SteeringMode != "" {
		r.agent.SetSteeringMode(o.SteeringMode)
	}
	if o.FollowUpMode != "" {
		r.agent.SetFollowUpMode(o.FollowUpMode)
	}
	if o.AutoRetry != nil {
		r.agent.SetAutoRetry(*o.AutoRetry)
	}
	if o.AutoCompaction != nil {
		r.mu.Lock()
		r.autoCompact = *o.AutoCompaction
		r.mu.Unlock()
	}
	return nil
}

// AbortRetry cancels a pending automatic retry; the run ends with the
// error it would have retried.
func (r *Runtime) AbortRetry() { r.agent.AbortRetry() }

// ClearQueue removes and returns the queued steering and follow-up
// messages.
func (r *Runtime) ClearQueue() (steering, followUp []llm.Message) { return r.agent.ClearQueue() }

// WaitIdle returns once no run is active.
func (r *Runtime) WaitIdle() { r.agent.WaitIdle() }

// Delivery says when a message given to Send reaches the model.
type Delivery int

const (
	// DeliverSteer queues it before the next model call of the run.
	DeliverSteer Delivery = iota
	// DeliverFollowUp queues it for when the run would stop.
	DeliverFollowUp
	// DeliverNow starts a run with it; the agent must be idle.
	DeliverNow
	// DeliverNextTurn records it: it goes with the next request.
	DeliverNextTurn
)

// Send delivers a message that is not typed input (an extension's custom
// message): no input handlers, no command expansion. DeliverNow blocks
// until the run settles.
func (r *Runtime) Send(ctx context.Context, msg llm.Message, d Delivery) error {
	switch d {
	case DeliverSteer:
		r.agent.Steer(msg)
	case DeliverFollowUp:
		r.agent.FollowUp(msg)
	case DeliverNow:
		return r.agent.Run(ctx, msg)
	case DeliverNextTurn:
		if _, err := r.Session().AppendMessage(msg); err != nil {
			return fmt.Errorf("send: %w", err)
		}
	default:
		return fmt.Errorf("send: unknown delivery %d", d)
	}
	return nil
}
