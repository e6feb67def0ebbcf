package jsonmode

import (
	"testing"

	"github.com/relay-agent/relay/internal/app/modetest"
)

// This mode attaches no UI: an extension sees hasUI false and its dialogs
// get the documented defaults (hooks.Headless) without waiting.
func TestNoUIBound(t *testing.T) { modetest.CheckNoUIBound(t, Run) }
