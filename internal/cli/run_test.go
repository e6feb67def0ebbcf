package cli

import (
	"testing"

	"github.com/relay-agent/relay/internal/settings"
)

func TestSettingsDiagLine(t *testing.T) {
	tests := []struct {
		d    settings.Diagnostic
		want string
	}{
		{settings.Diagnostic{File: "/a/settings.json", Key: "retry.maxRetries", Message: "expected a number; ignored", Severity: settings.SeverityError},
			"Warning: settings /a/settings.json: retry.maxRetries: expected a number; ignored"},
		{settings.Diagnostic{File: "/a/settings.json", Message: "invalid JSON; the whole file is ignored", Severity: settings.SeverityError},
			"Warning: settings /a/settings.json: invalid JSON; the whole file is ignored"},
	}
	for _, tt := range tests {
		if got := settingsDiagLine(tt.d); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}
