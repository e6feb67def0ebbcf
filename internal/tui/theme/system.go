package theme

import (
	"image/color"
	"strconv"
	"strings"
)

// Terminal is what the terminal reported about its colours; zero values
// mean it did not answer.
type Terminal struct {
	Background color.Color
	Foreground color.Color
	// Palette is the 16 ANSI colours the terminal reported (nil: unknown).
	Palette [16]color.Color
	// AppearanceHint is the terminal's light/dark notification ("" unknown).
	AppearanceHint string
	// ColorFGBG is the COLORFGBG environment variable.
	ColorFGBG string
}

// IsDark decides the appearance: reported background, then the terminal's
// notification, then COLORFGBG, then dark.
func (t Terminal) IsDark() bool {
	if t.Background != nil {
		r, g, b, _ := t.Background.RGBA()
		return luminance(uint8(r>>8), uint8(g>>8), uint8(b>>8)) < 0.18
	}
	switch t.AppearanceHint {
	case "dark":
		return true
	case "light":
		return false
	}
	if t.ColorFGBG != "" {
		parts := strings.Split(t.ColorFGBG, ";")
		if bg, err := strconv.Atoi(parts[len(parts)-1]); err == nil {
			return !(bg == 7 || bg >= 9 && bg <= 15)
		}
	}
	return true
}

// System builds the `system` theme. When the terminal reported its
// background, colours come from its palette (SystemFromPalette; relay's
// own hues where the palette is unknown); when it reported nothing,
// colours are ANSI palette indices the terminal renders itself, secondary
// text is faint, and panels take colours from the builtin dark or light
// theme.
func System(term Terminal) *Theme {
	if term.Background != nil {
		return SystemFromPalette(term.Background, term.Foreground, term.Palette)
	}
	return ansiTheme(term.IsDark())
}

// panelRoles are the backgrounds of prompts, custom messages and tool
// blocks, and the colours drawn on them.
var panelRoles = []string{"userMessageBg", "userMessageText", "customMessageBg", "customMessageText",
	"customMessageLabel", "toolPendingBg", "toolSuccessBg", "toolErrorBg", "toolTitle", "toolOutput"}

func ansiTheme(dark bool) *Theme {
	idx := func(i uint8) Color { return Color{Kind: Index, Index: i} }
	def := Color{}
	red, green, yellow, blue, magenta, cyan := idx(1), idx(2), idx(3), idx(4), idx(5), idx(6)
	c := map[string]Color{
		"accent": magenta, "border": blue, "borderAccent": magenta, "borderMuted": def,
		"success": green, "error": red, "warning": yellow, "muted": def, "dim": def, "text": def,
		"thinkingText": def, "selectedBg": idx(8), "userMessageBg": def, "userMessageText": def,
		"customMessageBg": def, "customMessageText": def, "customMessageLabel": magenta,
		"toolPendingBg": def, "toolSuccessBg": def, "toolErrorBg": def, "toolTitle": def, "toolOutput": def,
		"mdHeading": yellow, "mdLink": blue, "mdLinkUrl": def, "mdCode": magenta, "mdCodeBlock": green,
		"mdCodeBlockBorder": def, "mdQuote": def, "mdQuoteBorder": def, "mdHr": def, "mdListBullet": magenta,
		"toolDiffAdded": green, "toolDiffRemoved": red, "toolDiffContext": def,
		"syntaxComment": def, "syntaxKeyword": blue, "syntaxFunction": yellow, "syntaxVariable": cyan,
		"syntaxString": yellow, "syntaxNumber": green, "syntaxType": magenta, "syntaxOperator": def,
		"syntaxPunctuation": def, "thinkingOff": def, "thinkingMinimal": def, "thinkingLow": blue,
		"thinkingMedium": magenta, "thinkingHigh": magenta, "thinkingXhigh": red, "bashMode": green,
	}
	app := "dark"
	if !dark {
		app = "light"
	}
	// Panels: without them a prompt or a tool block looks like an answer.
	// The terminal's background is unknown, so each panel brings its own
	// foreground from the builtin theme of the guessed appearance: the pair
	// stays readable even when the guess is wrong.
	ref := Builtin(app)
	for _, r := range panelRoles {
		c[r] = ref.Color(r)
	}
	t := &Theme{Name: "system", Appearance: app, Source: "builtin", colors: c, export: map[string]Color{},
		faint: map[string]bool{"muted": true, "dim": true, "thinkingText": true,
			"mdLinkUrl": true, "mdQuote": true, "mdHr": true, "syntaxComment": true, "toolDiffContext": true,
			"borderMuted": true, "mdCodeBlockBorder": true, "mdQuoteBorder": true}}
	t.cache()
	return t
}

// Select resolves the `theme` setting: a name, or "light/dark" choosing by
// appearance. Unknown names fall back to system. custom holds loaded theme
// files by name.
func Select(setting string, term Terminal, custom map[string]*Theme) *Theme {
	name := strings.TrimSpace(setting)
	if l, d, ok := strings.Cut(name, "/"); ok {
		name = l
		if term.IsDark() {
			name = d
		}
	}
	if name == "" || name == "system" {
		return System(term)
	}
	if t, ok := custom[name]; ok {
		return t
	}
	if t := Builtin(name); t != nil {
		return t
	}
	return System(term)
}
