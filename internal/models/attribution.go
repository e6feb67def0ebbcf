package models

import (
	"net/url"
	"strings"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/llm"
)

// InstallTelemetry decides whether provider attribution headers are sent:
// RELAY_TELEMETRY when it is set to a documented boolean, otherwise the
// enableInstallTelemetry setting.
func InstallTelemetry(env config.Env, setting bool) bool {
	if env.TelemetrySet {
		return env.Telemetry
	}
	return setting
}

// AttributionHeaders are the headers that tell some providers which
// application sent a request (OpenRouter's app attribution, NVIDIA NIM's
// billing origin, Cloudflare's user agent). Nil for other providers.
// They are defaults: a model's own headers in models.json override them.
func AttributionHeaders(m *llm.Model) map[string]string {
	switch {
	case m.Provider == "openrouter" || strings.Contains(m.BaseURL, "openrouter.ai"):
		return map[string]string{
			"HTTP-Referer":            "https://github.com/relay-agent/relay",
			"X-OpenRouter-Title":      "relay",
			"X-OpenRouter-Categories": "cli-agent",
		}
	case m.Provider == "nvidia" || hostIs(m.BaseURL, "integrate.api.nvidia.com"):
		return map[string]string{"X-BILLING-INVOKE-ORIGIN": "Relay"}
	case m.Provider == "cloudflare-workers-ai" || m.Provider == "cloudflare-ai-gateway" ||
		hostIs(m.BaseURL, "api.cloudflare.com") || hostIs(m.BaseURL, "gateway.ai.cloudflare.com"):
		return map[string]string{"User-Agent": "relay-coding-agent"}
	}
	return nil
}

func hostIs(raw, host string) bool {
	u, err := url.Parse(raw)
	return err == nil && strings.EqualFold(u.Hostname(), host)
}

// WithAttribution returns headers with m's attribution defaults added
// under them (a header already present, in any letter case, wins).
func WithAttribution(m *llm.Model, headers map[string]string) map[string]string {
	attr := AttributionHeaders(m)
	if len(attr) == 0 {
		return headers
	}
	out := make(map[string]string, len(headers)+len(attr))
	for k, v := range attr {
		out[k] = v
	}
	for k, v := range headers {
		for ak := range attr {
			if strings.EqualFold(ak, k) {
				delete(out, ak)
			}
		}
		out[k] = v
	}
	return out
}
