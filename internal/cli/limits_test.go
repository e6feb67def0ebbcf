package cli

import (
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/session"
)

// TestHelpDocumentsLimits keeps the help text's limits equal to the ones
// enforced.
func TestHelpDocumentsLimits(t *testing.T) {
	for _, want := range []string{
		"piped stdin, each text @file and each prompt file (--system-prompt,\n--append-system-prompt, SYSTEM.md, APPEND_SYSTEM.md) up to " + humanSize(config.MaxPromptText),
		"an image\n@file up to " + humanSize(config.MaxImageFile),
		"configuration files up to " + humanSize(config.MaxConfigFile),
		"session files up to 1 GiB",
	} {
		if !strings.Contains(helpTopics["modes"], want) {
			t.Errorf("help lacks %q", want)
		}
	}
	if session.MaxFileSize != 1<<30 {
		t.Errorf("session.MaxFileSize = %d, help says 1 GiB", session.MaxFileSize)
	}
}
