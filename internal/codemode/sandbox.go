package codemode

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"modernc.org/quickjs"
)

// Sandbox limits (upstream-spec-extras §5).
const (
	MemoryLimit     = 256 << 20  // bytes of QuickJS heap
	MaxOutputChars  = 16_777_216 // text plus base64 image data
	MaxOutputCalls  = 100_000    // text(), image() and console calls
	MaxStoreValue   = 262_144    // chars of JSON per store value
	MaxStoreTotal   = 1_048_576  // chars of JSON over all values
	DefaultTimeout  = 10 * time.Minute
	maxStackSize    = 1 << 20
	imageDataPrefix = "data:"
)

// Host is what a script reaches through the sandbox's globals.
type Host struct {
	// Tools lists the callable tools: script identifier and real name.
	Tools []ToolName
	// AllTools is ALL_TOOLS as JSON.
	AllTools json.RawMessage
	// Call runs one nested tool call; it returns the value the script's
	// promise resolves to (JSON) or the error text it rejects with.
	Call func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)
	// Search, Describe and DescribeNamespace back the discovery globals;
	// a nil result is undefined.
	Search            func(query string, limit int, namespace string) (json.RawMessage, error)
	Describe          func(name string) json.RawMessage
	DescribeNamespace func(name string) json.RawMessage
	// Models backs the models global: op is the method, args its
	// arguments as a JSON array (nil: scripts get an error).
	Models func(ctx context.Context, op string, args json.RawMessage) (json.RawMessage, error)
	// Store holds the values load() sees at start.
	Store map[string]json.RawMessage
}

// ToolName is a tool as scripts name it.
type ToolName struct {
	ID   string // identifier: non-identifier characters are _
	Name string // the registered name
}

// Item is one output item: text, or an image.
type Item struct {
	Text     string
	Image    []byte // decoded; nil for text
	MimeType string
}

// Outcome is how a script ended.
type Outcome struct {
	OK     bool
	Output []Item
	Value  *string // text of the returned value, when not undefined
	// Error is the failure text ("TypeError: ...\n    at ..."), Kind one
	// of script, timeout, aborted, limit.
	Error, Kind string
	// StoreSet and StoreDelete are the writes of a successful script.
	StoreSet    map[string]json.RawMessage
	StoreDelete []string
}

// prelude builds the globals on top of the one host bridge __h, which it
// captures and deletes so scripts only reach the host through them.
const prelude = `(function(){
"use strict";
const h = globalThis.__h; delete globalThis.__h;
const unwrap = (s) => {
  const r = JSON.parse(s);
  if (r.e !== undefined) {
    const C = r.t === "RangeError" ? RangeError : r.t === "TypeError" ? TypeError : Error;
    throw new C(r.e);
  }
  return r.v;
};
const hc = (op, a, b) => unwrap(h(op, a === undefined ? "" : String(a), b === undefined ? "" : String(b)));
const show = (v) => {
  if (typeof v === "string") return v;
  if (v === undefined) return "undefined";
  if (typeof v === "bigint" || typeof v === "symbol" || typeof v === "function") return String(v);
  if (v instanceof Error) return v.name + ": " + v.message;
  try { const s = JSON.stringify(v); return s === undefined ? String(v) : s; } catch (e) { return String(v); }
};
const def = (name, value) => Object.defineProperty(globalThis, name, { value, writable: false, enumerable: false, configurable: false });
def("text", (v) => { hc("out", show(v)); });
const log = (...a) => { hc("out", a.map(show).join(" ")); };
def("console", Object.freeze({ log, info: log, warn: log, error: log, debug: log }));
def("image", (v) => {
  let s;
  try { s = JSON.stringify(v === undefined ? null : v); } catch (e) { throw new TypeError("image() expects a data: URL, { image_url } or an image block"); }
  hc("image", s);
});
def("exit", () => { hc("exit"); throw new InternalError("exit"); });
def("store", (k, v) => {
  if (typeof k !== "string") throw new TypeError("store(key, value) expects a string key");
  if (v === undefined) { hc("store", k, ""); return; }
  const s = JSON.stringify(v);
  if (s === undefined) throw new TypeError("store(): the value of " + JSON.stringify(k) + " is not JSON");
  hc("store", k, "j" + s);
});
def("load", (k) => {
  if (typeof k !== "string") throw new TypeError("load(key) expects a string key");
  return hc("load", k);
});
def("ALL_TOOLS", Object.freeze(JSON.parse(h("all", "", "")).v.map((t) => Object.freeze(t))));
def("searchTools", async (q, o) => {
  if (typeof q !== "string") throw new TypeError("searchTools() expects a query string");
  return hc("search", q, JSON.stringify(o === undefined || o === null ? {} : o));
});
def("describeTool", async (n) => {
  if (typeof n !== "string") throw new TypeError("describeTool() expects a tool name");
  return hc("describe", n);
});
def("describeNamespace", async (n) => {
  if (typeof n !== "string") throw new TypeError("describeNamespace() expects a namespace name");
  return hc("describens", n);
});
const mc = (op) => async (...a) => {
  let s;
  try { s = JSON.stringify(a.map((x) => x === undefined ? null : x)); } catch (e) { throw new TypeError("models." + op + "(): arguments are not JSON: " + e.message); }
  return hc("models", op, s);
};
def("models", Object.freeze({ getModelsOfType: mc("getModelsOfType"), getAvailableOfType: mc("getAvailableOfType"),
  getModelOfType: mc("getModelOfType"), classify: mc("classify"), generateImages: mc("generateImages") }));
const fns = Object.create(null);
for (const [id, name] of JSON.parse(h("names", "", "")).v) {
  const f = async (args) => {
    let s;
    try { s = JSON.stringify(args === undefined || args === null ? {} : args); } catch (e) { throw new TypeError("tools." + id + "(): arguments are not JSON: " + e.message); }
    return hc("call", name, s);
  };
  fns[id] = f;
  fns[name] = f;
}
def("tools", new Proxy(Object.freeze(fns), {
  get(t, p) {
    if (typeof p !== "string") return undefined;
    if (p in t) return t[p];
    if (p === "then" || p === "toJSON") return undefined;
    return async () => { throw new Error("Unknown tool " + JSON.stringify(p) + ". Find tools with searchTools(query) or ALL_TOOLS."); };
  },
}));
def("__relay_ok", (v) => { h("done", v === undefined ? "" : "j" + show(v), ""); });
def("__relay_fail", (e) => {
  let s;
  if (e instanceof Error) {
    s = e.name + ": " + e.message;
    if (typeof e.stack === "string" && e.stack.trim() !== "") s += "\n" + e.stack.replace(/\s+$/, "");
  } else {
    s = "Uncaught " + show(e);
  }
  h("fail", s, "");
});
})();`

type sandbox struct {
	ctx     context.Context
	host    *Host
	vm      *quickjs.VM
	out     []Item
	chars   int
	calls   int
	limit   string // set once an output limit was passed: the script fails even if it catches
	store   map[string]json.RawMessage
	storeSz int
	written map[string]bool
	done    bool
	ok      bool
	value   *string
	errText string

	mu     sync.Mutex
	reason string // why the VM was interrupted: timeout, aborted, exit
}

// Run executes code as the body of an async function.
func Run(ctx context.Context, code string, timeout time.Duration, host *Host) Outcome {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimeout)
	defer cancel()
	s := &sandbox{ctx: ctx, host: host, store: map[string]json.RawMessage{}, written: map[string]bool{}}
	for k, v := range host.Store {
		s.store[k] = v
		s.storeSz += len(v)
	}
	vm, err := quickjs.NewVM()
	if err != nil {
		return Outcome{Kind: "sandbox", Error: fmt.Sprintf("Script sandbox failed: %v", err)}
	}
	s.vm = vm
	defer vm.Close()
	vm.SetMemoryLimit(MemoryLimit)
	vm.SetMaxStackSize(maxStackSize)
	if err := vm.RegisterFunc("__h", s.bridge, false); err != nil {
		return Outcome{Kind: "sandbox", Error: fmt.Sprintf("Script sandbox failed: %v", err)}
	}
	if _, err := evalPrelude(vm); err != nil {
		return Outcome{Kind: "sandbox", Error: fmt.Sprintf("Script sandbox failed: prelude: %v", err)}
	}
	// The deadline and an abort interrupt the VM from another goroutine;
	// a nested tool call in progress sees ctx end too.
	stop := context.AfterFunc(ctx, func() {
		reason := "aborted"
		if errors.Is(context.Cause(ctx), errTimeout) {
			reason = "timeout"
		}
		s.interrupt(reason)
	})
	defer stop()

	src := "(async function() {" + code + "\n})().then(__relay_ok, __relay_fail);"
	if _, err := vm.Eval(src, quickjs.EvalGlobal); err != nil && !s.done {
		s.done, s.errText = true, errorText(err)
	}
	for !s.done {
		n, err := vm.ExecutePendingJobs()
		if err != nil && !s.done {
			s.done, s.errText = true, errorText(err)
		}
		if n == 0 && !s.done {
			s.done, s.errText = true, "Error: the script awaits a promise that can never settle (no tool call is pending and there are no timers)"
		}
	}
	return s.outcome(timeout)
}

var errTimeout = errors.New("script timed out")

// The prelude is compiled once per process; each VM evaluates the
// bytecode, which is faster than parsing it again.
var (
	preludeOnce sync.Once
	preludeCode []byte
)

func evalPrelude(vm *quickjs.VM) (any, error) {
	preludeOnce.Do(func() {
		c, err := quickjs.NewVM()
		if err != nil {
			return
		}
		defer c.Close()
		preludeCode, _ = c.Compile(prelude, quickjs.EvalGlobal)
	})
	if preludeCode == nil {
		return vm.Eval(prelude, quickjs.EvalGlobal)
	}
	return vm.EvalBytecode(preludeCode)
}

func (s *sandbox) interrupt(reason string) {
	s.mu.Lock()
	if s.reason == "" {
		s.reason = reason
	}
	s.mu.Unlock()
	s.vm.Interrupt()
}

func (s *sandbox) outcome(timeout time.Duration) Outcome {
	s.mu.Lock()
	reason := s.reason
	s.mu.Unlock()
	o := Outcome{Output: s.out}
	switch {
	case reason == "exit":
		o.OK = true
	case reason == "timeout":
		o.Kind, o.Error = "timeout", fmt.Sprintf("Script timed out: it ran longer than %d ms (set // @options: {\"timeout_ms\": N})", timeout.Milliseconds())
		return o
	case reason == "aborted":
		o.Kind, o.Error = "aborted", "Script aborted: the tool call was cancelled"
		return o
	case s.limit != "":
		o.Kind, o.Error = "limit", "RangeError: "+s.limit
		return o
	case !s.ok:
		o.Kind, o.Error = "script", s.errText
		return o
	default:
		o.OK, o.Value = true, s.value
	}
	o.StoreSet = map[string]json.RawMessage{}
	for k := range s.written {
		if v, ok := s.store[k]; ok {
			o.StoreSet[k] = v
		} else {
			o.StoreDelete = append(o.StoreDelete, k)
		}
	}
	return o
}

func errorText(err error) string {
	var qe *quickjs.Error
	if errors.As(err, &qe) {
		return strings.TrimSpace(qe.Error())
	}
	return err.Error()
}

type reply struct {
	V json.RawMessage `json:"v,omitempty"`
	E *string         `json:"e,omitempty"`
	T string          `json:"t,omitempty"`
}

func ok(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fail("Error", err.Error())
	}
	return `{"v":` + string(b) + `}`
}

func okRaw(v json.RawMessage) string {
	if v == nil {
		return "{}"
	}
	b, _ := json.Marshal(reply{V: v})
	return string(b)
}

func fail(kind, msg string) string {
	b, _ := json.Marshal(reply{E: &msg, T: kind})
	return string(b)
}

// bridge is the one host function; op says which global called it.
func (s *sandbox) bridge(op, a, b string) string {
	switch op {
	case "out":
		if e := s.emit(Item{Text: a}, len(a)); e != "" {
			return fail("RangeError", e)
		}
		return "{}"
	case "image":
		it, err := parseImage(a)
		if err != nil {
			return fail("TypeError", err.Error())
		}
		if e := s.emit(it, base64.StdEncoding.EncodedLen(len(it.Image))); e != "" {
			return fail("RangeError", e)
		}
		return "{}"
	case "exit":
		s.interrupt("exit")
		return "{}"
	case "store":
		return s.storeOp(a, b)
	case "load":
		return okRaw(s.store[a])
	case "all":
		if len(s.host.AllTools) == 0 {
			return `{"v":[]}`
		}
		return okRaw(s.host.AllTools)
	case "names":
		list := make([][2]string, len(s.host.Tools))
		for i, t := range s.host.Tools {
			list[i] = [2]string{t.ID, t.Name}
		}
		return ok(list)
	case "call":
		if s.host.Call == nil {
			return fail("Error", "tool calls are not available here")
		}
		v, err := s.host.Call(s.ctx, a, json.RawMessage(b))
		if err != nil {
			return fail("Error", err.Error())
		}
		return okRaw(v)
	case "models":
		if s.host.Models == nil {
			return fail("Error", "models are not available here")
		}
		v, err := s.host.Models(s.ctx, a, json.RawMessage(b))
		if err != nil {
			return fail("Error", err.Error())
		}
		return okRaw(v)
	case "search":
		var o struct {
			Limit     *float64 `json:"limit"`
			Namespace *string  `json:"namespace"`
		}
		if err := json.Unmarshal([]byte(b), &o); err != nil {
			return fail("TypeError", "searchTools() options must be { limit?, namespace? }")
		}
		limit := 8
		if o.Limit != nil {
			if *o.Limit <= 0 || *o.Limit != float64(int(*o.Limit)) {
				return fail("TypeError", "searchTools() limit must be a positive integer")
			}
			limit = int(*o.Limit)
		}
		ns := ""
		if o.Namespace != nil {
			ns = *o.Namespace
		}
		if s.host.Search == nil {
			return `{"v":[]}`
		}
		v, err := s.host.Search(a, limit, ns)
		if err != nil {
			return fail("Error", err.Error())
		}
		return okRaw(v)
	case "describe":
		if s.host.Describe == nil {
			return "{}"
		}
		return okRaw(s.host.Describe(a))
	case "describens":
		if s.host.DescribeNamespace == nil {
			return "{}"
		}
		return okRaw(s.host.DescribeNamespace(a))
	case "done":
		if !s.done {
			s.done, s.ok = true, true
			if strings.HasPrefix(a, "j") {
				v := a[1:]
				s.value = &v
			}
		}
		return "{}"
	case "fail":
		if !s.done {
			s.done, s.errText = true, a
		}
		return "{}"
	}
	return fail("Error", "unknown host operation "+op)
}

func (s *sandbox) emit(it Item, size int) string {
	if s.limit != "" {
		return s.limit
	}
	s.calls++
	s.chars += size
	switch {
	case s.calls > MaxOutputCalls:
		s.limit = fmt.Sprintf("output limit: more than %d text(), image() and console calls; write large data to a file with a tool instead", MaxOutputCalls)
	case s.chars > MaxOutputChars:
		s.limit = fmt.Sprintf("output limit: more than %d characters of output; write large data to a file with a tool instead", MaxOutputChars)
	default:
		s.out = append(s.out, it)
		return ""
	}
	return s.limit
}

func (s *sandbox) storeOp(key, val string) string {
	old := len(s.store[key])
	if val == "" {
		delete(s.store, key)
		s.storeSz -= old
		s.written[key] = true
		return "{}"
	}
	v := val[1:]
	if len(v) > MaxStoreValue {
		return fail("RangeError", fmt.Sprintf("store(%q): the value has %d characters of JSON; the limit is %d", key, len(v), MaxStoreValue))
	}
	if s.storeSz-old+len(v) > MaxStoreTotal {
		return fail("RangeError", fmt.Sprintf("store(%q): all values together would have %d characters of JSON; the limit is %d", key, s.storeSz-old+len(v), MaxStoreTotal))
	}
	s.store[key] = json.RawMessage(v)
	s.storeSz += len(v) - old
	s.written[key] = true
	return "{}"
}

var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// parseImage accepts a base64 data: URL, {image_url} (string or {url})
// or an image block {type: "image", data, mimeType}.
func parseImage(raw string) (Item, error) {
	const want = "image() expects a base64 data: URL, { image_url } or an image block { type: \"image\", data, mimeType }"
	var v any
	if json.Unmarshal([]byte(raw), &v) != nil {
		return Item{}, errors.New(want)
	}
	var mime, data string
	switch x := v.(type) {
	case string:
		return parseDataURL(x)
	case map[string]any:
		if u, ok := x["image_url"]; ok {
			if m, ok := u.(map[string]any); ok {
				u = m["url"]
			}
			if s, ok := u.(string); ok {
				return parseDataURL(s)
			}
			return Item{}, errors.New(want)
		}
		mime, _ = x["mimeType"].(string)
		data, _ = x["data"].(string)
		if x["type"] != "image" || data == "" {
			return Item{}, errors.New(want)
		}
	default:
		return Item{}, errors.New(want)
	}
	return decodeImage(mime, data)
}

func parseDataURL(s string) (Item, error) {
	if !strings.HasPrefix(s, imageDataPrefix) {
		if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
			return Item{}, errors.New("image(): remote URLs are not supported; pass a base64 data: URL or an image block")
		}
		return Item{}, errors.New("image() expects a base64 data: URL, { image_url } or an image block { type: \"image\", data, mimeType }")
	}
	meta, data, found := strings.Cut(s[len(imageDataPrefix):], ",")
	if !found || !strings.HasSuffix(meta, ";base64") {
		return Item{}, errors.New("image(): the data: URL must be base64 (data:image/png;base64,...)")
	}
	return decodeImage(strings.TrimSuffix(meta, ";base64"), data)
}

func decodeImage(mime, data string) (Item, error) {
	if !imageTypes[mime] {
		return Item{}, fmt.Errorf("image(): type %q is not supported (PNG, JPEG, GIF and WebP are)", mime)
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return Item{}, fmt.Errorf("image(): the data is not valid base64: %v", err)
	}
	return Item{Image: b, MimeType: mime}, nil
}
