package theme

import (
	"image/color"
	"math"
)

// rgbToOklab converts 8-bit sRGB to OKLab.
func rgbToOklab(r, g, b uint8) lab {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	R, G, B := lin(r), lin(g), lin(b)
	l := math.Cbrt(0.4122214708*R + 0.5363325363*G + 0.0514459929*B)
	m := math.Cbrt(0.2119034982*R + 0.6806995451*G + 0.1073969566*B)
	s := math.Cbrt(0.0883024619*R + 0.2817188376*G + 0.6299787005*B)
	return lab{
		L: 0.2104542553*l + 0.7936177850*m - 0.0040720468*s,
		a: 1.9779984951*l - 2.4285922050*m + 0.4505937099*s,
		b: 0.0259040371*l + 0.7827717662*m - 0.8086757660*s,
	}
}

func fromLab(c lab) Color {
	C := math.Hypot(c.a, c.b)
	h := math.Atan2(c.b, c.a) * 180 / math.Pi
	r, g, b := oklchToRGB(math.Max(0, math.Min(1, c.L)), C, h)
	return Color{Kind: RGB, R: r, G: g, B: b}
}

func toRGB8(c color.Color) (uint8, uint8, uint8) {
	r, g, b, _ := c.RGBA()
	return uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)
}

func contrast(a, b Color) float64 {
	la, lb := luminance(a.R, a.G, a.B), luminance(b.R, b.G, b.B)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// placeFor moves c's lightness away from the background until it reaches
// the minimum contrast (hue and chroma kept).
func placeFor(c lab, bg Color, dark bool, min float64) Color {
	out := fromLab(c)
	for i := 0; i < 50 && contrast(out, bg) < min; i++ {
		if dark {
			c.L += 0.02
		} else {
			c.L -= 0.02
		}
		if c.L <= 0 || c.L >= 1 {
			break
		}
		out = fromLab(c)
	}
	return out
}

// mix blends a toward b by t in OKLab.
func mix(a, b lab, t float64) lab {
	return lab{a.L + (b.L-a.L)*t, a.a + (b.a-a.a)*t, a.b + (b.b-a.b)*t}
}

// SystemFromPalette builds the `system` theme from the colours the
// terminal reported: every role takes its hue from one of the 16 ANSI
// colours (errors red, links blue, ...) with its lightness placed so it
// stands out from the background (body text at least 4.5:1, other
// foregrounds 3:1). Panels are the background shifted slightly. palette
// entries that were not reported are nil and fall back to the built-in
// hues for the appearance.
func SystemFromPalette(bgc, fgc color.Color, palette [16]color.Color) *Theme {
	if bgc == nil {
		return ansiTheme(true)
	}
	br, bgg, bb := toRGB8(bgc)
	bg := Color{Kind: RGB, R: br, G: bgg, B: bb}
	dark := luminance(br, bgg, bb) < 0.18
	base := Builtin("light")
	if dark {
		base = Builtin("dark")
	}
	bgLab := rgbToOklab(br, bgg, bb)
	fg := base.Color("text")
	if fgc != nil {
		r, g, b := toRGB8(fgc)
		fg = Color{Kind: RGB, R: r, G: g, B: b}
	}
	fgLab := rgbToOklab(fg.R, fg.G, fg.B)
	hue := func(i int, fallback string) lab {
		if palette[i] != nil {
			r, g, b := toRGB8(palette[i])
			return rgbToOklab(r, g, b)
		}
		c := base.Color(fallback)
		return rgbToOklab(c.R, c.G, c.B)
	}
	red, green, yellow, blue := hue(1, "error"), hue(2, "success"), hue(3, "warning"), hue(4, "mdLink")
	magenta, cyan := hue(5, "accent"), hue(6, "syntaxVariable")
	muted := mix(fgLab, bgLab, 0.35)
	dim := mix(fgLab, bgLab, 0.5)
	panel := func(tint lab, amount float64) Color {
		shift := 0.06
		if !dark {
			shift = -0.05
		}
		p := mix(bgLab, tint, amount)
		p.L = bgLab.L + shift
		return fromLab(p)
	}
	fgRole := func(c lab) Color { return placeFor(c, bg, dark, 3) }
	text := placeFor(fgLab, bg, dark, 4.5)
	c := map[string]Color{
		"accent": fgRole(magenta), "border": fgRole(blue), "borderAccent": fgRole(magenta), "borderMuted": fromLab(dim),
		"success": fgRole(green), "error": fgRole(red), "warning": fgRole(yellow), "muted": placeFor(muted, bg, dark, 3),
		"dim": fromLab(dim), "text": text, "thinkingText": placeFor(muted, bg, dark, 3),
		"selectedBg": panel(blue, 0.25), "userMessageBg": panel(blue, 0.2), "userMessageText": text,
		"customMessageBg": panel(magenta, 0.2), "customMessageText": placeFor(muted, bg, dark, 3), "customMessageLabel": fgRole(magenta),
		"toolPendingBg": panel(bgLab, 0), "toolSuccessBg": panel(green, 0.2), "toolErrorBg": panel(red, 0.2),
		"toolTitle": text, "toolOutput": placeFor(muted, bg, dark, 3),
		"mdHeading": fgRole(yellow), "mdLink": fgRole(blue), "mdLinkUrl": placeFor(muted, bg, dark, 3), "mdCode": fgRole(magenta),
		"mdCodeBlock": fgRole(green), "mdCodeBlockBorder": fromLab(dim), "mdQuote": placeFor(muted, bg, dark, 3),
		"mdQuoteBorder": fromLab(dim), "mdHr": fromLab(dim), "mdListBullet": fgRole(magenta),
		"toolDiffAdded": fgRole(green), "toolDiffRemoved": fgRole(red), "toolDiffContext": placeFor(muted, bg, dark, 3),
		"syntaxComment": placeFor(muted, bg, dark, 3), "syntaxKeyword": fgRole(blue), "syntaxFunction": fgRole(yellow),
		"syntaxVariable": fgRole(cyan), "syntaxString": fgRole(mix(yellow, green, 0.3)), "syntaxNumber": fgRole(green),
		"syntaxType": fgRole(magenta), "syntaxOperator": placeFor(muted, bg, dark, 3), "syntaxPunctuation": placeFor(muted, bg, dark, 3),
		"thinkingOff": fromLab(dim), "thinkingMinimal": fgRole(mix(dim, blue, 0.4)), "thinkingLow": fgRole(blue),
		"thinkingMedium": fgRole(mix(blue, magenta, 0.5)), "thinkingHigh": fgRole(magenta), "thinkingXhigh": fgRole(mix(magenta, red, 0.5)),
		"thinkingMax": fgRole(red), "bashMode": fgRole(green),
		"scrollbarTrack": fromLab(dim), "scrollbarThumb": placeFor(muted, bg, dark, 3),
		"searchMatchBg": panel(yellow, 0.3), "searchMatchText": text,
	}
	app := "light"
	if dark {
		app = "dark"
	}
	t := &Theme{Name: "system", Appearance: app, Source: "builtin", colors: c, export: map[string]Color{}}
	t.cache()
	return t
}
