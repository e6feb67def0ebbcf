package export

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// xssPayloads is the corpus of hostile content the page must show as
// text: script and event-handler injection, URL schemes, markup that
// changes how the page's script elements parse, and markdown constructs.
var xssPayloads = []string{
	`<script>window.__xss=1</script>`,
	`</script><script>window.__xss=1</script>`,
	`<img src=x onerror="window.__xss=1">`,
	`<svg onload="window.__xss=1">`,
	`<iframe src="javascript:window.__xss=1"></iframe>`,
	`<a href="javascript:window.__xss=1">click</a>`,
	`[click](javascript:window.__xss=1)`,
	`[click](JaVaScRiPt:window.__xss=1)`,
	`[click]( javascript:window.__xss=1 )`,
	`[click](vbscript:msgbox(1))`,
	`[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)`,
	`![x](javascript:window.__xss=1)`,
	`![x](https://evil.example/track.png)`,
	`![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)`,
	`![x" onerror="window.__xss=1](data:image/png;base64,AAAA)`,
	`<javascript:window.__xss=1>`,
	`<!-- <script>window.__xss=1</script> -->`,
	`<style>body{background:url(https://evil.example/x)}</style>`,
	`<object data="javascript:window.__xss=1"></object>`,
	`<embed src="javascript:window.__xss=1">`,
	`<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=1>`,
	`<details open ontoggle="window.__xss=1">`,
	`<body onload="window.__xss=1">`,
	"```html\n</code></pre><script>window.__xss=1</script>\n```",
	"`<img src=x onerror=window.__xss=1>`",
	`<a href="https://ok.example" onclick="window.__xss=1">x</a>`,
	`[x](https://ok.example "title\" onmouseover=\"window.__xss=1")`,
	`<meta http-equiv="refresh" content="0;url=javascript:window.__xss=1">`,
	`<base href="https://evil.example/">`,
	`<form action="javascript:window.__xss=1"><button>x</button></form>`,
	"\u2028<script>window.__xss=1</script>\u2029",
	"<scr\x00ipt>window.__xss=1</scr\x00ipt>",
}

// liveMarkup parses an HTML fragment and describes the first thing in it
// that could run script, load a resource or navigate to script: an element
// outside the renderers' vocabulary, an event-handler or style-less
// dangerous attribute, a link whose scheme is not http(s)/mailto/fragment,
// or an image that is not an inline raster data URL. "" = inert.
func liveMarkup(fragment string) string {
	nodes, err := html.ParseFragment(strings.NewReader(fragment), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		return "unparseable: " + err.Error()
	}
	allowed := map[string]bool{}
	for _, tag := range strings.Fields(`div span p a img pre code ul ol li em strong del h1 h2 h3 h4 h5 h6 blockquote hr br
		table thead tbody tr th td input button time`) {
		allowed[tag] = true
	}
	var walk func(n *html.Node) string
	walk = func(n *html.Node) string {
		if n.Type == html.CommentNode {
			return "comment node"
		}
		if n.Type == html.ElementNode {
			if !allowed[n.Data] {
				return "element <" + n.Data + ">"
			}
			for _, a := range n.Attr {
				k, v := strings.ToLower(a.Key), strings.ToLower(strings.TrimSpace(a.Val))
				switch {
				case strings.HasPrefix(k, "on"):
					return "attribute " + k
				case k == "href" && !(strings.HasPrefix(v, "https://") || strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "mailto:") || strings.HasPrefix(v, "#")):
					return "href " + v
				case k == "src" && !regexp.MustCompile(`^data:image/(png|jpeg|gif|webp);base64,[a-z0-9+/=]*$`).MatchString(v):
					return "src " + v
				case k == "srcset" || k == "action" || k == "formaction" || k == "srcdoc" || k == "style" || k == "xlink:href":
					return "attribute " + k
				case n.Data == "input" && k == "type" && v != "checkbox":
					return "input type " + v
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if p := walk(c); p != "" {
				return p
			}
		}
		return ""
	}
	for _, n := range nodes {
		if p := walk(n); p != "" {
			return p
		}
	}
	return ""
}
