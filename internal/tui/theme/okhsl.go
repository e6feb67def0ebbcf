package theme

import "math"

// Colour conversion from the OKLab family to sRGB, after Björn Ottosson's
// published OKLab/OKHSL definitions.

type lab struct{ L, a, b float64 }

func oklabToLinear(c lab) (r, g, b float64) {
	l := c.L + 0.3963377774*c.a + 0.2158037573*c.b
	m := c.L - 0.1055613458*c.a - 0.0638541728*c.b
	s := c.L - 0.0894841775*c.a - 1.2914855480*c.b
	l, m, s = l*l*l, m*m*m, s*s*s
	r = 4.0767416621*l - 3.3077115913*m + 0.2309699292*s
	g = -1.2684380046*l + 2.6097574011*m - 0.3413193965*s
	b = -0.0041960863*l - 0.7034186147*m + 1.7076147010*s
	return
}

func gammaEncode(x float64) float64 {
	if x <= 0.0031308 {
		return 12.92 * x
	}
	return 1.055*math.Pow(x, 1/2.4) - 0.055
}

func to8(x float64) uint8 {
	v := math.Round(gammaEncode(x) * 255)
	return uint8(math.Max(0, math.Min(255, v)))
}

func maxSaturation(a, b float64) float64 {
	var k0, k1, k2, k3, k4, wl, wm, ws float64
	switch {
	case -1.88170328*a-0.80936493*b > 1:
		k0, k1, k2, k3, k4 = 1.19086277, 1.76576728, 0.59662641, 0.75515197, 0.56771245
		wl, wm, ws = 4.0767416621, -3.3077115913, 0.2309699292
	case 1.81444104*a-1.19445276*b > 1:
		k0, k1, k2, k3, k4 = 0.73956515, -0.45954404, 0.08285427, 0.12541070, 0.14503204
		wl, wm, ws = -1.2684380046, 2.6097574011, -0.3413193965
	default:
		k0, k1, k2, k3, k4 = 1.35733652, -0.00915799, -1.15130210, -0.50559606, 0.00692167
		wl, wm, ws = -0.0041960863, -0.7034186147, 1.7076147010
	}
	S := k0 + k1*a + k2*b + k3*a*a + k4*a*b
	kl := 0.3963377774*a + 0.2158037573*b
	km := -0.1055613458*a - 0.0638541728*b
	ks := -0.0894841775*a - 1.2914855480*b
	l_, m_, s_ := 1+S*kl, 1+S*km, 1+S*ks
	l, m, s := l_*l_*l_, m_*m_*m_, s_*s_*s_
	ldS, mdS, sdS := 3*kl*l_*l_, 3*km*m_*m_, 3*ks*s_*s_
	ldS2, mdS2, sdS2 := 6*kl*kl*l_, 6*km*km*m_, 6*ks*ks*s_
	f := wl*l + wm*m + ws*s
	f1 := wl*ldS + wm*mdS + ws*sdS
	f2 := wl*ldS2 + wm*mdS2 + ws*sdS2
	return S - f*f1/(f1*f1-0.5*f*f2)
}

type lc struct{ L, C float64 }

func findCusp(a, b float64) lc {
	S := maxSaturation(a, b)
	r, g, bl := oklabToLinear(lab{1, S * a, S * b})
	L := math.Cbrt(1 / math.Max(math.Max(r, g), bl))
	return lc{L, L * S}
}

func gamutIntersection(a, b, L1, C1, L0 float64, cusp lc) float64 {
	if (L1-L0)*cusp.C-(cusp.L-L0)*C1 <= 0 {
		return cusp.C * L0 / (C1*cusp.L + cusp.C*(L0-L1))
	}
	t := cusp.C * (L0 - 1) / (C1*(cusp.L-1) + cusp.C*(L0-L1))
	dL, dC := L1-L0, C1
	kl := 0.3963377774*a + 0.2158037573*b
	km := -0.1055613458*a - 0.0638541728*b
	ks := -0.0894841775*a - 1.2914855480*b
	ldt, mdt, sdt := dL+dC*kl, dL+dC*km, dL+dC*ks
	L := L0*(1-t) + t*L1
	C := t * C1
	l_, m_, s_ := L+C*kl, L+C*km, L+C*ks
	l, m, s := l_*l_*l_, m_*m_*m_, s_*s_*s_
	l1, m1, s1 := 3*ldt*l_*l_, 3*mdt*m_*m_, 3*sdt*s_*s_
	l2, m2, s2 := 6*ldt*ldt*l_, 6*mdt*mdt*m_, 6*sdt*sdt*s_
	step := func(w0, w1, w2 float64) float64 {
		f := w0*l + w1*m + w2*s - 1
		f1 := w0*l1 + w1*m1 + w2*s1
		f2 := w0*l2 + w1*m2 + w2*s2
		u := f1 / (f1*f1 - 0.5*f*f2)
		if u < 0 {
			return math.MaxFloat64
		}
		return -f * u
	}
	tr := step(4.0767416621, -3.3077115913, 0.2309699292)
	tg := step(-1.2684380046, 2.6097574011, -0.3413193965)
	tb := step(-0.0041960863, -0.7034186147, 1.7076147010)
	return t + math.Min(tr, math.Min(tg, tb))
}

func toeInv(x float64) float64 {
	const k1, k2 = 0.206, 0.03
	const k3 = (1 + k1) / (1 + k2)
	return (x*x + k1*x) / (k3 * (x + k2))
}

// okhslToRGB converts h in degrees, s and l in 0..1.
func okhslToRGB(h, s, l float64) (uint8, uint8, uint8) {
	if l >= 1 {
		return 255, 255, 255
	}
	if l <= 0 {
		return 0, 0, 0
	}
	a_ := math.Cos(h / 360 * 2 * math.Pi)
	b_ := math.Sin(h / 360 * 2 * math.Pi)
	L := toeInv(l)
	cusp := findCusp(a_, b_)
	cMax := gamutIntersection(a_, b_, L, 1, L, cusp)
	stS, stT := cusp.C/cusp.L, cusp.C/(1-cusp.L)
	k := cMax / math.Min(L*stS, (1-L)*stT)
	midS := 0.11516993 + 1/(7.44778970+4.15901240*b_+a_*(-2.19557347+1.75198401*b_+a_*(-2.13704948-10.02301043*b_+a_*(-4.24894561+5.38770819*b_+4.69891013*a_))))
	midT := 0.11239642 + 1/(1.61320320-0.68124379*b_+a_*(0.40370612+0.90148123*b_+a_*(-0.27087943+0.61223990*b_+a_*(0.00299215-0.45399568*b_-0.14661872*a_))))
	ca, cb := L*midS, (1-L)*midT
	cMid := 0.9 * k * math.Sqrt(math.Sqrt(1/(1/(ca*ca*ca*ca)+1/(cb*cb*cb*cb))))
	ca, cb = L*0.4, (1-L)*0.8
	c0 := math.Sqrt(1 / (1/(ca*ca) + 1/(cb*cb)))
	const mid, midInv = 0.8, 1.25
	var C float64
	if s < mid {
		t := midInv * s
		k1 := mid * c0
		k2 := 1 - k1/cMid
		C = t * k1 / (1 - k2*t)
	} else {
		t := (s - mid) / (1 - mid)
		k0 := cMid
		k1 := (1 - mid) * cMid * cMid * midInv * midInv / c0
		k2 := 1 - k1/(cMax-cMid)
		C = k0 + t*k1/(1-k2*t)
	}
	r, g, b := oklabToLinear(lab{L, C * a_, C * b_})
	return to8(r), to8(g), to8(b)
}

// oklchToRGB converts L 0..1, chroma and hue in degrees, reducing chroma
// until the colour is inside sRGB.
func oklchToRGB(L, C, h float64) (uint8, uint8, uint8) {
	a, b := math.Cos(h/180*math.Pi), math.Sin(h/180*math.Pi)
	in := func(c float64) bool {
		r, g, bl := oklabToLinear(lab{L, c * a, c * b})
		const eps = 1e-4
		return r >= -eps && r <= 1+eps && g >= -eps && g <= 1+eps && bl >= -eps && bl <= 1+eps
	}
	if !in(C) {
		lo, hi := 0.0, C
		for i := 0; i < 24; i++ {
			m := (lo + hi) / 2
			if in(m) {
				lo = m
			} else {
				hi = m
			}
		}
		C = lo
	}
	r, g, bl := oklabToLinear(lab{L, C * a, C * b})
	return to8(r), to8(g), to8(bl)
}
