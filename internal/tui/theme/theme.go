// Package theme holds relay's colour themes: the built-in dark and light
// palettes, `system` (derived from what the terminal reports), and custom
// theme files (<agent-dir>/themes/<name>.json) in the original's format:
// name, appearance, vars, colors, export.
package theme

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/fsx"
)

//go:embed builtin/*.json
var builtinFS embed.FS

// Roles every theme must define.
var requiredRoles = []string{
	"accent", "border", "borderAccent", "borderMuted", "success", "error", "warning", "muted", "dim", "text",
	"thinkingText", "selectedBg", "userMessageBg", "userMessageText", "customMessageBg", "customMessageText",
	"customMessageLabel", "toolPendingBg", "toolSuccessBg", "toolErrorBg", "toolTitle", "toolOutput",
	"mdHeading", "mdLink", "mdLinkUrl", "mdCode", "mdCodeBlock", "mdCodeBlockBorder", "mdQuote", "mdQuoteBorder",
	"mdHr", "mdListBullet", "toolDiffAdded", "toolDiffRemoved", "toolDiffContext", "syntaxComment",
	"syntaxKeyword", "syntaxFunction", "syntaxVariable", "syntaxString", "syntaxNumber", "syntaxType",
	"syntaxOperator", "syntaxPunctuation", "thinkingOff", "thinkingMinimal", "thinkingLow", "thinkingMedium",
	"thinkingHigh", "thinkingXhigh", "bashMode",
}

// optionalRoles fall back to another role when omitted.
var optionalRoles = map[string]string{
	"scrollbarTrack":  "muted",
	"scrollbarThumb":  "text",
	"searchMatchBg":   "selectedBg",
	"searchMatchText": "text",
	"thinkingMax":     "thinkingXhigh",
}

// Roles lists every role a theme resolves: the required ones, then the
// optional ones in name order.
func Roles() []string {
	out := append([]string(nil), requiredRoles...)
	opt := make([]string, 0, len(optionalRoles))
	for r := range optionalRoles {
		opt = append(opt, r)
	}
	sort.Strings(opt)
	return append(out, opt...)
}

// Kind of a colour value.
type Kind uint8

const (
	Default Kind = iota // the terminal's default foreground or background
	RGB
	Index // 256-colour palette index
)

// Color is a resolved theme colour.
type Color struct {
	Kind    Kind
	R, G, B uint8
	Index   uint8
}

// Hex is #rrggbb (index colours use the xterm palette; default is empty).
func (c Color) Hex() string {
	switch c.Kind {
	case RGB:
		return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
	case Index:
		r, g, b := xtermRGB(c.Index)
		return fmt.Sprintf("#%02x%02x%02x", r, g, b)
	}
	return ""
}

// ToColor converts to image/color (nil for the terminal default).
func (c Color) ToColor() color.Color {
	switch c.Kind {
	case RGB:
		return color.RGBA{c.R, c.G, c.B, 255}
	case Index:
		r, g, b := xtermRGB(c.Index)
		return color.RGBA{r, g, b, 255}
	}
	return nil
}

func (c Color) sgr(bg bool) string {
	switch c.Kind {
	case RGB:
		if bg {
			return fmt.Sprintf("\x1b[48;2;%d;%d;%dm", c.R, c.G, c.B)
		}
		return fmt.Sprintf("\x1b[38;2;%d;%d;%dm", c.R, c.G, c.B)
	case Index:
		if bg {
			return fmt.Sprintf("\x1b[48;5;%dm", c.Index)
		}
		return fmt.Sprintf("\x1b[38;5;%dm", c.Index)
	}
	return ""
}

// Theme is a resolved palette. Safe for concurrent reads.
type Theme struct {
	Name       string
	Appearance string // "dark" or "light"
	Source     string // file path, or "builtin"
	colors     map[string]Color
	export     map[string]Color
	fg, bg     map[string]string // cached SGR sequences
	fgEnd      map[string]string // what undoes fg: faint roles also reset intensity
	// faint marks secondary roles drawn faint in the ANSI fallback.
	faint map[string]bool
}

// Color returns a role's colour (terminal default when unknown).
func (t *Theme) Color(role string) Color {
	if c, ok := t.colors[role]; ok {
		return c
	}
	if fb, ok := optionalRoles[role]; ok {
		return t.colors[fb]
	}
	return Color{}
}

// ExportColor returns export.pageBg/cardBg/infoBg, derived from
// userMessageBg when the theme does not set them.
func (t *Theme) ExportColor(name string) Color {
	if c, ok := t.export[name]; ok {
		return c
	}
	return t.Color("userMessageBg")
}

// FgSeq is the SGR sequence that sets a role as foreground. For faint
// roles it also turns faint on, so it must be closed with FgEnd, not a
// bare ESC[39m.
func (t *Theme) FgSeq(role string) string {
	if s, ok := t.fg[role]; ok {
		return s
	}
	return t.Color(role).sgr(false)
}

// FgEnd is the SGR sequence that undoes FgSeq(role).
func (t *Theme) FgEnd(role string) string {
	if s, ok := t.fgEnd[role]; ok {
		return s
	}
	return "\x1b[39m"
}

// BgSeq is the SGR sequence that sets a role as background.
func (t *Theme) BgSeq(role string) string {
	if s, ok := t.bg[role]; ok {
		return s
	}
	return t.Color(role).sgr(true)
}

// Fg colours s with a role.
func (t *Theme) Fg(role, s string) string {
	seq := t.FgSeq(role)
	if seq == "" || s == "" {
		return s
	}
	return seq + s + t.FgEnd(role)
}

// Bg gives s a role's background.
func (t *Theme) Bg(role, s string) string {
	seq := t.BgSeq(role)
	if seq == "" || s == "" {
		return s
	}
	return seq + s + "\x1b[49m"
}

// Bold, Italic, Underline and Faint wrap s in the attribute.
func Bold(s string) string      { return "\x1b[1m" + s + "\x1b[22m" }
func Italic(s string) string    { return "\x1b[3m" + s + "\x1b[23m" }
func Underline(s string) string { return "\x1b[4m" + s + "\x1b[24m" }
func Strike(s string) string    { return "\x1b[9m" + s + "\x1b[29m" }
func (t *Theme) cache() {
	t.fg, t.bg, t.fgEnd = map[string]string{}, map[string]string{}, map[string]string{}
	for r := range t.colors {
		t.fg[r] = t.colors[r].sgr(false)
		t.bg[r] = t.colors[r].sgr(true)
		if t.faint[r] {
			// SGR 22 also ends bold; faint roles are secondary text that
			// is never nested inside bold text.
			t.fg[r] += "\x1b[2m"
			t.fgEnd[r] = "\x1b[22;39m"
		}
	}
	for r, fb := range optionalRoles {
		if _, ok := t.colors[r]; !ok {
			t.fg[r], t.bg[r] = t.fg[fb], t.bg[fb]
			if e, ok := t.fgEnd[fb]; ok {
				t.fgEnd[r] = e
			}
		}
	}
}

type file struct {
	Name       string                     `json:"name"`
	Appearance string                     `json:"appearance"`
	Vars       map[string]json.RawMessage `json:"vars"`
	Colors     map[string]json.RawMessage `json:"colors"`
	Export     map[string]json.RawMessage `json:"export"`
}

// Parse reads a theme file.
func Parse(data []byte) (*Theme, error) {
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	switch {
	case f.Name == "":
		return nil, errors.New("missing name")
	case strings.Contains(f.Name, "/"):
		return nil, fmt.Errorf("name %q contains /", f.Name)
	case f.Name == "system":
		return nil, errors.New(`"system" is reserved`)
	case f.Colors == nil:
		return nil, errors.New("missing colors")
	case f.Appearance != "" && f.Appearance != "dark" && f.Appearance != "light":
		return nil, fmt.Errorf("appearance %q is not dark or light", f.Appearance)
	}
	r := resolver{vars: f.Vars, done: map[string]Color{}, busy: map[string]bool{}}
	t := &Theme{Name: f.Name, Appearance: f.Appearance, colors: map[string]Color{}, export: map[string]Color{}}
	for _, role := range requiredRoles {
		if _, ok := f.Colors[role]; !ok {
			return nil, fmt.Errorf("colors.%s is required", role)
		}
	}
	for role, raw := range f.Colors {
		c, err := r.value(raw)
		if err != nil {
			return nil, fmt.Errorf("colors.%s: %w", role, err)
		}
		t.colors[role] = c
	}
	for name, raw := range f.Export {
		c, err := r.value(raw)
		if err != nil {
			return nil, fmt.Errorf("export.%s: %w", name, err)
		}
		t.export[name] = c
	}
	if t.Appearance == "" {
		t.Appearance = "dark"
		if bg := t.colors["userMessageBg"]; bg.Kind == RGB && luminance(bg.R, bg.G, bg.B) > 0.5 {
			t.Appearance = "light"
		}
	}
	t.cache()
	return t, nil
}

type resolver struct {
	vars map[string]json.RawMessage
	done map[string]Color
	busy map[string]bool
}

func (r *resolver) value(raw json.RawMessage) (Color, error) {
	var n float64
	if err := json.Unmarshal(raw, &n); err == nil {
		if n < 0 || n > 255 || n != math.Trunc(n) {
			return Color{}, fmt.Errorf("palette index %v out of 0-255", n)
		}
		return Color{Kind: Index, Index: uint8(n)}, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return Color{}, errors.New("colour must be a string or a number")
	}
	return r.str(strings.TrimSpace(s))
}

func (r *resolver) str(s string) (Color, error) {
	switch {
	case s == "":
		return Color{}, nil
	case strings.HasPrefix(s, "#"):
		return parseHex(s)
	case strings.HasPrefix(s, "oklch(") && strings.HasSuffix(s, ")"):
		return parseFunc(s[6:len(s)-1], true)
	case strings.HasPrefix(s, "okhsl(") && strings.HasSuffix(s, ")"):
		return parseFunc(s[6:len(s)-1], false)
	}
	if c, ok := r.done[s]; ok {
		return c, nil
	}
	raw, ok := r.vars[s]
	if !ok {
		return Color{}, fmt.Errorf("unknown colour or variable %q", s)
	}
	if r.busy[s] {
		return Color{}, fmt.Errorf("circular variable %q", s)
	}
	r.busy[s] = true
	c, err := r.value(raw)
	r.busy[s] = false
	if err != nil {
		return Color{}, fmt.Errorf("var %s: %w", s, err)
	}
	r.done[s] = c
	return c, nil
}

func parseHex(s string) (Color, error) {
	h := s[1:]
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	if len(h) != 6 {
		return Color{}, fmt.Errorf("bad hex colour %q", s)
	}
	v, err := strconv.ParseUint(h, 16, 32)
	if err != nil {
		return Color{}, fmt.Errorf("bad hex colour %q", s)
	}
	return Color{Kind: RGB, R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v)}, nil
}

// parseFunc reads "L C H" (oklch) or "H S L" (okhsl); percentages allowed.
func parseFunc(args string, lch bool) (Color, error) {
	f := strings.Fields(strings.ReplaceAll(args, ",", " "))
	if len(f) != 3 {
		return Color{}, fmt.Errorf("need three components in %q", args)
	}
	num := func(s string, pctScale float64) (float64, error) {
		if p, ok := strings.CutSuffix(s, "%"); ok {
			v, err := strconv.ParseFloat(p, 64)
			return v / 100 * pctScale, err
		}
		s = strings.TrimSuffix(s, "deg")
		return strconv.ParseFloat(s, 64)
	}
	if lch {
		L, e1 := num(f[0], 1)
		C, e2 := num(f[1], 0.4)
		H, e3 := num(f[2], 1)
		if err := errors.Join(e1, e2, e3); err != nil {
			return Color{}, fmt.Errorf("bad oklch(%s)", args)
		}
		if L > 1 { // "62" meaning 62%
			L /= 100
		}
		r, g, b := oklchToRGB(L, C, H)
		return Color{Kind: RGB, R: r, G: g, B: b}, nil
	}
	H, e1 := num(f[0], 1)
	S, e2 := num(f[1], 1)
	L, e3 := num(f[2], 1)
	if err := errors.Join(e1, e2, e3); err != nil {
		return Color{}, fmt.Errorf("bad okhsl(%s)", args)
	}
	r, g, b := okhslToRGB(H, S, L)
	return Color{Kind: RGB, R: r, G: g, B: b}, nil
}

func luminance(r, g, b uint8) float64 {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

func xtermRGB(i uint8) (uint8, uint8, uint8) {
	base := [16][3]uint8{{0, 0, 0}, {205, 0, 0}, {0, 205, 0}, {205, 205, 0}, {0, 0, 238}, {205, 0, 205}, {0, 205, 205}, {229, 229, 229},
		{127, 127, 127}, {255, 0, 0}, {0, 255, 0}, {255, 255, 0}, {92, 92, 255}, {255, 0, 255}, {0, 255, 255}, {255, 255, 255}}
	switch {
	case i < 16:
		return base[i][0], base[i][1], base[i][2]
	case i < 232:
		v := []uint8{0, 95, 135, 175, 215, 255}
		i -= 16
		return v[i/36], v[(i/6)%6], v[i%6]
	}
	g := 8 + (i-232)*10
	return g, g, g
}

var (
	builtinOnce sync.Once
	builtins    map[string]*Theme
)

// Builtin returns the dark or light theme (nil for another name). Parsed
// on first use, not at start-up.
func Builtin(name string) *Theme {
	builtinOnce.Do(func() {
		builtins = map[string]*Theme{}
		for _, n := range []string{"dark", "light"} {
			data, _ := builtinFS.ReadFile("builtin/" + n + ".json")
			t, err := Parse(data)
			if err != nil {
				panic("builtin theme " + n + ": " + err.Error())
			}
			t.Source = "builtin"
			builtins[n] = t
		}
	})
	return builtins[name]
}

// LoadDir reads every *.json theme in dir. Invalid files are reported and
// skipped; a missing directory is not an error.
func LoadDir(dir string) ([]*Theme, []error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, []error{fmt.Errorf("read themes: %w", err)}
	}
	var paths []string
	for _, e := range ents {
		if !e.IsDir() && filepath.Ext(e.Name()) == ".json" {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	out, errs := LoadFiles(paths)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errs
}

// LoadFiles reads theme files in order. Invalid files are reported and
// skipped.
func LoadFiles(paths []string) ([]*Theme, []error) {
	var out []*Theme
	var errs []error
	for _, p := range paths {
		data, err := fsx.ReadFile(p, config.MaxConfigFile)
		if err == nil {
			var t *Theme
			if t, err = Parse(data); err == nil {
				t.Source = p
				out = append(out, t)
				continue
			}
		}
		errs = append(errs, fmt.Errorf("theme %s: %w", p, err))
	}
	return out, errs
}
