package export

import (
	"fmt"
	"math"
	"strings"

	"github.com/relay-agent/relay/internal/tui/theme"
)

// themeRoles are the theme colours the page uses, written as CSS custom
// properties (--role).
var themeRoles = []string{
	"accent", "border", "borderAccent", "borderMuted", "success", "error", "warning", "muted", "dim", "text",
	"thinkingText", "selectedBg", "userMessageBg", "userMessageText", "customMessageBg", "customMessageText",
	"customMessageLabel", "toolPendingBg", "toolSuccessBg", "toolErrorBg", "toolTitle", "toolOutput",
	"mdHeading", "mdLink", "mdLinkUrl", "mdCode", "mdCodeBlock", "mdCodeBlockBorder", "mdQuote", "mdQuoteBorder",
	"mdHr", "mdListBullet", "toolDiffAdded", "toolDiffRemoved", "toolDiffContext", "syntaxComment",
	"syntaxKeyword", "syntaxFunction", "syntaxVariable", "syntaxString", "syntaxNumber", "syntaxType",
	"syntaxOperator", "syntaxPunctuation", "bashMode", "searchMatchBg", "searchMatchText", "scrollbarThumb",
}

// themeVars returns the CSS declarations of a theme: every role plus the
// export block's pageBg, cardBg and infoBg (--exportPageBg, ...), derived
// from userMessageBg when the theme has no export block, as the original
// derives them.
func themeVars(th *theme.Theme) string {
	var b strings.Builder
	fallback := map[string]string{"text": "#e6e6e6", "muted": "#8b93a1"}
	if th.Appearance == "light" {
		fallback = map[string]string{"text": "#1d1f23", "muted": "#5f6673"}
	}
	for _, r := range themeRoles {
		hex := th.Color(r).Hex()
		if hex == "" {
			// A terminal-default colour has no value on a page.
			hex = fallback[r]
			if hex == "" {
				hex = "inherit"
			}
		}
		fmt.Fprintf(&b, "--%s:%s;", r, hex)
	}
	base := th.Color("userMessageBg")
	derived := deriveExport(base, th.Appearance == "light")
	for _, n := range []string{"pageBg", "cardBg", "infoBg"} {
		v := th.ExportColor(n)
		val := v.Hex()
		if val == "" || v == base {
			val = derived[n]
		}
		fmt.Fprintf(&b, "--export%s%s:%s;", strings.ToUpper(n[:1]), n[1:], val)
	}
	if th.Appearance == "light" {
		b.WriteString("color-scheme:light;")
	} else {
		b.WriteString("color-scheme:dark;")
	}
	return b.String()
}

func deriveExport(c theme.Color, light bool) map[string]string {
	col := c.ToColor()
	if col == nil {
		if light {
			return map[string]string{"pageBg": "#f3f3f5", "cardBg": "#ffffff", "infoBg": "#fbf3dc"}
		}
		return map[string]string{"pageBg": "#18181e", "cardBg": "#1e1e24", "infoBg": "#3c3728"}
	}
	r32, g32, b32, _ := col.RGBA()
	r, g, bl := float64(r32>>8), float64(g32>>8), float64(b32>>8)
	scale := func(f float64) string {
		cl := func(v float64) int { return int(math.Max(0, math.Min(255, math.Round(v*f)))) }
		return fmt.Sprintf("#%02x%02x%02x", cl(r), cl(g), cl(bl))
	}
	lum := 0.2126*r/255 + 0.7152*g/255 + 0.0722*bl/255
	if lum > 0.5 {
		return map[string]string{"pageBg": scale(0.96), "cardBg": c.Hex(),
			"infoBg": fmt.Sprintf("#%02x%02x%02x", int(math.Min(255, r+10)), int(math.Min(255, g+5)), int(math.Max(0, bl-20)))}
	}
	return map[string]string{"pageBg": scale(0.7), "cardBg": scale(0.85),
		"infoBg": fmt.Sprintf("#%02x%02x%02x", int(math.Min(255, r+20)), int(math.Min(255, g+15)), int(bl))}
}

// themeCSS is the :root block: the options' theme, with its light
// counterpart under prefers-color-scheme: light (see Options).
func themeCSS(o Options) string {
	th, light := o.Theme, o.LightTheme
	if th == nil {
		th, light = theme.Builtin("dark"), theme.Builtin("light")
	}
	css := ":root{" + themeVars(th) + "}\n"
	if light != nil {
		css += "@media (prefers-color-scheme: light){:root{" + themeVars(light) + "}}\n"
	}
	return css
}
