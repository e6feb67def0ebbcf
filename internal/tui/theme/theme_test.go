package theme

import (
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltins(t *testing.T) {
	for _, n := range []string{"dark", "light"} {
		th := Builtin(n)
		if th == nil || th.Appearance != n {
			t.Fatalf("builtin %s", n)
		}
		for _, r := range requiredRoles {
			if th.Color(r).Kind != RGB {
				t.Errorf("%s.%s not resolved", n, r)
			}
		}
	}
	if got := Builtin("dark").Fg("error", "x"); !strings.HasPrefix(got, "\x1b[38;2;") || !strings.HasSuffix(got, "x\x1b[39m") {
		t.Errorf("Fg = %q", got)
	}
}

const minimal = `"accent":"#f0f","border":"#00f","borderAccent":"#f0f","borderMuted":"#777","success":"#0f0",
"error":"#f00","warning":"#ff0","muted":"#888","dim":"#666","text":"","thinkingText":"#888","selectedBg":"#224",
"userMessageBg":"bg","userMessageText":"","customMessageBg":"#202","customMessageText":"#888","customMessageLabel":"#f0f",
"toolPendingBg":"#222","toolSuccessBg":"#020","toolErrorBg":"#200","toolTitle":"","toolOutput":"#888",
"mdHeading":"#ff0","mdLink":"#00f","mdLinkUrl":"#888","mdCode":"#f0f","mdCodeBlock":"#0f0","mdCodeBlockBorder":"#888",
"mdQuote":"#888","mdQuoteBorder":"#888","mdHr":"#888","mdListBullet":"#f0f","toolDiffAdded":"#0f0","toolDiffRemoved":"#f00",
"toolDiffContext":"#888","syntaxComment":"#888","syntaxKeyword":"#00f","syntaxFunction":"#ff0","syntaxVariable":"#0ff",
"syntaxString":"#ff0","syntaxNumber":"#0f0","syntaxType":"#f0f","syntaxOperator":"#888","syntaxPunctuation":"#888",
"thinkingOff":"#444","thinkingMinimal":"#555","thinkingLow":"#00f","thinkingMedium":"oklch(60% 0.15 300)",
"thinkingHigh":"okhsl(295 73% 59%)","thinkingXhigh":200,"bashMode":"#0f0"`

func TestParseCustom(t *testing.T) {
	th, err := Parse([]byte(`{"name":"mine","vars":{"bg":"base","base":"#101010"},"colors":{` + minimal + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	if th.Appearance != "dark" {
		t.Errorf("appearance %q", th.Appearance)
	}
	if c := th.Color("userMessageBg"); c.Hex() != "#101010" {
		t.Errorf("var chain = %s", c.Hex())
	}
	if th.Color("text").Kind != Default || th.FgSeq("text") != "" {
		t.Error(`"" should be terminal default`)
	}
	if c := th.Color("thinkingXhigh"); c.Kind != Index || c.Index != 200 {
		t.Errorf("index = %+v", c)
	}
	// Optional roles fall back.
	if th.Color("thinkingMax") != th.Color("thinkingXhigh") || th.Color("searchMatchBg") != th.Color("selectedBg") {
		t.Error("optional fallbacks")
	}
	if th.ExportColor("pageBg") != th.Color("userMessageBg") {
		t.Error("export fallback")
	}
}

func TestParseErrors(t *testing.T) {
	tests := map[string]string{
		`{"colors":{}}`:                           "missing name",
		`{"name":"a/b","colors":{}}`:              "contains /",
		`{"name":"system","colors":{}}`:           "reserved",
		`{"name":"x"}`:                            "missing colors",
		`{"name":"x","colors":{"accent":"#fff"}}`: "is required",
		`{"name":"x","vars":{"bg":"nope"},"colors":{` + minimal + `}}`:       `unknown colour or variable "nope"`,
		`{"name":"x","vars":{"bg":"a","a":"bg"},"colors":{` + minimal + `}}`: "circular",
		`{"name":"x","vars":{"bg":300},"colors":{` + minimal + `}}`:          "out of 0-255",
	}
	for in, want := range tests {
		_, err := Parse([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", in[:min(40, len(in))], err, want)
		}
	}
}

func TestLoadDirAndSelect(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "mine.json"), []byte(`{"name":"mine","vars":{"bg":"#fafafa"},"colors":{`+minimal+`}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"name":"bad"}`), 0o644)
	themes, errs := LoadDir(dir)
	if len(themes) != 1 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "bad.json") {
		t.Fatalf("themes %d errs %v", len(themes), errs)
	}
	if themes[0].Appearance != "light" {
		t.Errorf("detected appearance %q", themes[0].Appearance)
	}
	custom := map[string]*Theme{"mine": themes[0]}
	dark := Terminal{Background: color.RGBA{10, 10, 10, 255}}
	light := Terminal{Background: color.RGBA{250, 250, 250, 255}}
	if Select("mine", dark, custom).Name != "mine" {
		t.Error("custom")
	}
	if Select("light/dark", dark, custom).Name != "dark" || Select("light/dark", light, custom).Name != "light" {
		t.Error("pair")
	}
	if s := Select("", light, custom); s.Name != "system" || s.Appearance != "light" {
		t.Errorf("system light = %s %s", s.Name, s.Appearance)
	}
	if s := Select("system", Terminal{}, nil); s.Color("error").Kind != Index {
		t.Error("ANSI fallback without a reported background")
	}
}

func TestIsDark(t *testing.T) {
	if !(Terminal{}).IsDark() {
		t.Error("default dark")
	}
	if (Terminal{ColorFGBG: "0;15"}).IsDark() {
		t.Error("COLORFGBG light")
	}
	if !(Terminal{ColorFGBG: "15;0"}).IsDark() {
		t.Error("COLORFGBG dark")
	}
	if (Terminal{AppearanceHint: "light"}).IsDark() {
		t.Error("hint")
	}
}

func TestSystemFromPalette(t *testing.T) {
	var pal [16]color.Color
	pal[1] = color.RGBA{205, 0, 0, 255}
	pal[4] = color.RGBA{0, 0, 238, 255} // a dark blue on a dark background
	bg := color.RGBA{20, 20, 20, 255}
	th := SystemFromPalette(bg, color.RGBA{220, 220, 220, 255}, pal)
	bgc := Color{Kind: RGB, R: 20, G: 20, B: 20}
	if c := contrast(th.Color("text"), bgc); c < 4.5 {
		t.Errorf("text contrast %.2f", c)
	}
	if c := contrast(th.Color("mdLink"), bgc); c < 3 {
		t.Errorf("link contrast %.2f (blue must be lightened)", c)
	}
	e := th.Color("error")
	if e.R < e.G || e.R < e.B {
		t.Errorf("error lost its red hue: %s", e.Hex())
	}
	light := SystemFromPalette(color.RGBA{250, 250, 250, 255}, nil, [16]color.Color{})
	if light.Appearance != "light" || contrast(light.Color("text"), Color{Kind: RGB, R: 250, G: 250, B: 250}) < 4.5 {
		t.Error("light background")
	}
}

// sgrFaint reports whether faint is still on at the end of s.
func sgrFaint(s string) bool {
	faint := false
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return faint
		}
		s = s[i+2:]
		j := strings.IndexByte(s, 'm')
		if j < 0 {
			return faint
		}
		ps := strings.Split(s[:j], ";")
		for k := 0; k < len(ps); k++ {
			switch ps[k] {
			case "", "0", "22":
				faint = false
			case "2":
				faint = true
			case "38", "48":
				if k+1 < len(ps) && ps[k+1] == "5" {
					k += 2
				} else {
					k += 4
				}
			}
		}
		s = s[j+1:]
	}
}

// The ANSI fallback draws secondary roles faint; the attribute must end
// with the role's text, or everything after it (the user's typing, the
// paragraph after a rule) is drawn faint too.
func TestSystemFallbackFaintDoesNotLeak(t *testing.T) {
	th := System(Terminal{})
	faint := 0
	for _, r := range append(append([]string{}, requiredRoles...), "scrollbarTrack", "thinkingMax") {
		got := th.Fg(r, "x")
		if strings.Contains(got, "\x1b[2m") {
			faint++
		}
		if sgrFaint(got) {
			t.Errorf("Fg(%q) leaves faint on: %q", r, got)
		}
	}
	if faint == 0 {
		t.Fatal("no faint roles in the fallback")
	}
}

// A prompt and a tool block have backgrounds even when the terminal did
// not report its colours, each with a foreground of its own.
func TestSystemFallbackPanels(t *testing.T) {
	for _, dark := range []bool{true, false} {
		fgbg := "0;15"
		if dark {
			fgbg = "15;0"
		}
		th := System(Terminal{ColorFGBG: fgbg})
		for _, pair := range [][2]string{{"userMessageBg", "userMessageText"}, {"toolPendingBg", "toolTitle"},
			{"toolSuccessBg", "toolOutput"}, {"toolErrorBg", "toolOutput"}, {"customMessageBg", "customMessageText"}} {
			if th.BgSeq(pair[0]) == "" {
				t.Errorf("dark=%v: %s has no background", dark, pair[0])
			}
			if th.Color(pair[1]).Kind != RGB {
				t.Errorf("dark=%v: %s on %s has no colour of its own", dark, pair[1], pair[0])
			}
		}
		if th.Color("text").Kind != Default || th.Color("error").Kind != Index {
			t.Errorf("dark=%v: body colours should stay the terminal's", dark)
		}
	}
}
