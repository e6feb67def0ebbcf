package transcript

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// Kitty unicode placeholders let images live in redrawn screens
// (fullscreen mode): each image is sent once with an id and a virtual
// placement (U=1), and the transcript draws it as ordinary text cells —
// U+10EEEE with the image id in the foreground colour and the row in a
// combining diacritic. The renderer scrolls, clips and repaints those
// cells like any text, so scrolling cannot leave image debris behind; a
// cleared transcript deletes its images by id.

const placeholder = '\U0010EEEE'

// rowDiacritics are the first maxImageRows entries of the kitty graphics
// protocol's row/column diacritics table (index = row or column number).
var rowDiacritics = [maxImageRows]rune{
	0x0305, 0x030D, 0x030E, 0x0310, 0x0312, 0x033D, 0x033E, 0x033F, 0x0346, 0x034A,
	0x034B, 0x034C, 0x0350, 0x0351, 0x0352, 0x0357, 0x035B, 0x0363, 0x0364, 0x0365,
	0x0366, 0x0367, 0x0368, 0x0369, 0x036A, 0x036B, 0x036C, 0x036D, 0x036E, 0x036F,
	0x0483, 0x0484, 0x0485, 0x0486, 0x0487, 0x0592, 0x0593, 0x0594, 0x0595, 0x0597,
}

// Image ids are 256-colour indexes; 0-15 are avoided because renderers may
// rewrite them as the basic SGR colours.
const firstKittyID, lastKittyID = 16, 255

type placed struct {
	id         int
	cols, rows int
}

// kittyImages tracks the images sent to the terminal.
type kittyImages struct {
	widthCells int
	ids        map[*llm.ImageContent]placed
	next       int
	pending    strings.Builder // transmissions and deletions not yet written
}

func newKittyImages(widthCells int) *kittyImages {
	return &kittyImages{widthCells: widthCells, ids: map[*llm.ImageContent]placed{}, next: firstKittyID}
}

// place sends img (once) and returns its placement; ok is false when the
// image cannot be drawn.
func (k *kittyImages) place(img *llm.ImageContent) (placed, bool) {
	if p, ok := k.ids[img]; ok {
		return p, p.id != 0
	}
	raw, cols, rows, format, ok := prepare(img, k.widthCells, 1<<16)
	if !ok {
		k.ids[img] = placed{}
		return placed{}, false
	}
	if format != "png" {
		var err error
		if raw, err = toPNG(raw); err != nil {
			k.ids[img] = placed{}
			return placed{}, false
		}
	}
	id := k.next
	if k.next++; k.next > lastKittyID {
		k.next = firstKittyID // ids are reused after 240 images
	}
	for other, p := range k.ids {
		if p.id == id {
			delete(k.ids, other)
		}
	}
	k.pending.WriteString(kittyTransmit(base64.StdEncoding.EncodeToString(raw), id))
	fmt.Fprintf(&k.pending, "\x1b_Ga=p,U=1,i=%d,c=%d,r=%d,q=2\x1b\\", id, cols, rows)
	p := placed{id: id, cols: cols, rows: rows}
	k.ids[img] = p
	return p, true
}

// clear deletes every image sent (their data too).
func (k *kittyImages) clear() {
	for _, p := range k.ids {
		if p.id != 0 {
			fmt.Fprintf(&k.pending, "\x1b_Ga=d,d=I,i=%d,q=2\x1b\\", p.id)
		}
	}
	clear(k.ids)
}

func (k *kittyImages) take() string {
	s := k.pending.String()
	k.pending.Reset()
	return s
}

// lines draws a placed image as placeholder cells, at most width columns.
func (p placed) lines(width int) []string {
	cols := min(p.cols, max(1, width))
	out := make([]string, p.rows)
	bare := strings.Repeat(string(placeholder), cols-1)
	for r := range p.rows {
		out[r] = fmt.Sprintf("\x1b[38;5;%dm%c%c%c%s\x1b[39m", p.id, placeholder, rowDiacritics[r], rowDiacritics[0], bare)
	}
	return out
}

// kittyTransmit sends PNG data under an id without displaying it.
func kittyTransmit(b64 string, id int) string {
	var sb strings.Builder
	first := true
	for len(b64) > 0 {
		n := min(4096, len(b64))
		chunk := b64[:n]
		b64 = b64[n:]
		more := 0
		if len(b64) > 0 {
			more = 1
		}
		if first {
			fmt.Fprintf(&sb, "\x1b_Ga=t,f=100,i=%d,q=2,m=%d;%s\x1b\\", id, more, chunk)
			first = false
		} else {
			fmt.Fprintf(&sb, "\x1b_Gm=%d;%s\x1b\\", more, chunk)
		}
	}
	return sb.String()
}
