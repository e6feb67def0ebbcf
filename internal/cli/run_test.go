package cli

import (
	"testing"

	"github.com/relay-agent/relay/internal/llm"
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

// Transient failures before any content are retried in the provider
// client by default (as the official SDKs do), so they never reach the
// session; an explicit retry.provider.maxRetries wins, and retry.enabled
// false turns the default off.
func TestProviderRetries(t *testing.T) {
	tests := []struct {
		r    settings.Retry
		want int
	}{
		{settings.Defaults().Retry, llm.DefaultProviderRetries},
		{settings.Retry{Enabled: true, Provider: settings.ProviderRetry{MaxRetries: 5}}, 5},
		{settings.Retry{Enabled: false}, 0},
		{settings.Retry{Enabled: false, Provider: settings.ProviderRetry{MaxRetries: 1}}, 1},
	}
	for _, tt := range tests {
		if got := providerRetries(tt.r); got != tt.want {
			t.Errorf("%+v: %d, want %d", tt.r, got, tt.want)
		}
	}
}
