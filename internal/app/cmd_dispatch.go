package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// CommandOutput is the result of a slash command run by RunCommand.
type CommandOutput struct {
	// Text is the message to show.
	Text string
	// Terminal holds bytes for the front end to write to its terminal
	// (the OSC 52 clipboard sequence of /copy); "" for none.
	Terminal string
	// SessionReplaced is true when another session was opened (/import):
	// the front end redraws from ContextMessages.
	SessionReplaced bool
}

// RunCommand runs a slash command whose logic needs no dialog, from a
// line such as "/export out.html". handled is false for commands it does
// not own (/model, /tree, /resume, /hotkeys ... belong to the front end).
// Front ends with dialogs call the typed methods directly instead: /bug
// here writes a report without the transcript, and /trust without a
// number only shows the state and the numbered choices.
func (r *Runtime) RunCommand(ctx context.Context, line string) (out CommandOutput, handled bool, err error) {
	name, arg := splitCommand(line)
	handled = true
	switch name {
	case "session":
		out.Text = r.SessionInfoText()
	case "harness":
		out.Text, _ = r.HarnessText()
	case "name":
		out.Text, err = r.NameCommand(arg)
	case "changelog":
		out.Text = r.Changelog()
	case "export":
		var p string
		if p, err = r.ExportSession(arg); err == nil {
			out.Text = "Session exported to: " + p
		}
	case "import":
		var res ImportResult
		if res, err = r.ImportSession(arg); err == nil {
			out.Text, out.SessionReplaced = res.Text(), true
		}
	case "copy":
		var res CopyResult
		if res, err = r.CopyLastAssistant(ctx); err == nil {
			out.Text, out.Terminal = res.Message(), res.OSC52
		}
	case "share":
		var res ShareResult
		if res, err = r.Share(ctx); err == nil {
			out.Text = res.Text()
		}
	case "bug":
		var res BugResult
		if res, err = r.BugReport(ctx, BugOptions{Description: arg, Transcript: BugTranscriptOmit}); err == nil {
			out.Text = res.Text()
		}
	case "login":
		provider, key, _ := strings.Cut(arg, " ")
		out.Text, err = r.Login(provider, strings.TrimSpace(key))
	case "logout":
		out.Text, err = r.Logout(arg)
	case "debug":
		var p string
		if p, err = r.WriteDebugLog(); err == nil {
			out.Text = "Debug log written to: " + p
		}
	case "laya":
		out.Text, err = r.LayaCommand(ctx, arg)
	case "trust":
		if arg == "" {
			out.Text = r.TrustState().Format()
			break
		}
		n, convErr := strconv.Atoi(arg)
		if convErr != nil {
			return out, true, fmt.Errorf("usage: /trust [choice number]")
		}
		out.Text, err = r.SetTrust(n - 1)
	default:
		handled = false
	}
	return out, handled, err
}

// splitCommand splits "/name rest" into "name" and the trimmed rest.
func splitCommand(line string) (string, string) {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "/")
	name, arg, _ := strings.Cut(line, " ")
	return name, strings.TrimSpace(arg)
}
