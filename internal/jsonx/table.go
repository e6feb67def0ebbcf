package jsonx

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Table is the single-pass decoder of one struct type T. It is built once,
// from T's json tags (reflection at build time only), into a field table:
// member name -> offset and kind. Decoding walks the object once and
// stores each known member through its row, so a struct's decoder cannot
// drift from its declaration: adding a field to T adds its row.
//
// Like the rest of the package it only has to be right for what it
// accepts: Decode reports false for anything it does not decode exactly as
// encoding/json would (a repeated known member, a member name that only
// matches case-insensitively, a number where a string is declared, a
// fractional integer, nesting deeper than Skip validates, malformed
// input), and the caller then uses encoding/json. For what it accepts it
// yields encoding/json's values: strings unescaped the same way, raw
// members copied byte for byte, nulls treated per field type (a scalar or
// struct keeps its value, a pointer or slice becomes nil, a
// json.RawMessage keeps the bytes "null").
//
// Supported field types: string, bool, int, int64, float64 (and named
// types of them), json.RawMessage, pointers to string, int, bool or a
// struct, structs and slices of structs (decoded with tables of their own),
// and any type given a Custom decoder. A field tagged "-" whose type is a
// map[string]json.RawMessage receives the members T does not declare (see
// llm.Extra); without one, unknown members are validated and dropped, as
// encoding/json drops them.
type Table[T any] struct{ t *table }

// Option configures a table.
type Option func(*builder)

// Discard names a member that is not a field: it must be a string or null
// and is dropped (the "role" or "type" a caller dispatched on).
func Discard(name string) Option {
	return func(b *builder) { b.discard = append(b.discard, name) }
}

// Custom decodes values of type T (in the table's struct and the structs
// nested in it) with fn, which must consume the value at the read
// position, null included, as T's UnmarshalJSON would.
func Custom[T any](fn func(p *Scanner, v *T) bool) Option {
	return func(b *builder) {
		b.custom[reflect.TypeFor[T]()] = func(p *Scanner, ptr unsafe.Pointer) bool { return fn(p, (*T)(ptr)) }
	}
}

// NewTable builds the table of T. It panics when T has a field of a type
// it cannot decode: a programming error every test of the caller's
// package catches at init.
func NewTable[T any](opts ...Option) *Table[T] {
	b := &builder{custom: map[reflect.Type]func(*Scanner, unsafe.Pointer) bool{}}
	for _, o := range opts {
		o(b)
	}
	t := b.build(reflect.TypeFor[T]())
	for _, name := range b.discard {
		t.fields = append(t.fields, field{name: name, kind: kDiscard})
		t.names = append(t.names, name)
	}
	if len(t.fields) > 64 {
		panic(fmt.Sprintf("jsonx: %s has more than 64 members", reflect.TypeFor[T]()))
	}
	return &Table[T]{t}
}

// Decode decodes the object at the read position into v (which should be
// the zero value: members absent from the object keep v's values).
func (t *Table[T]) Decode(p *Scanner, v *T) bool {
	return t.t.decode(p, unsafe.Pointer(v))
}

// Names returns the member names the table knows, in field order.
func (t *Table[T]) Names() []string { return append([]string(nil), t.t.names...) }

type kind uint8

const (
	kString kind = iota
	kBool
	kInt
	kInt64
	kFloat64
	kRaw
	kPtrString
	kPtrInt
	kPtrBool
	kStruct
	kPtrStruct
	kSlice
	kCustom
	kDiscard
)

type field struct {
	name   string
	off    uintptr
	kind   kind
	sub    *table       // kStruct, kPtrStruct, kSlice: the element's table
	typ    reflect.Type // kPtrStruct: the element type; kSlice: the slice type
	custom func(*Scanner, unsafe.Pointer) bool
}

type table struct {
	fields   []field
	names    []string // of fields, for the case-folding check
	hasExtra bool
	extra    uintptr // offset of the map[string]json.RawMessage field
}

type builder struct {
	custom  map[reflect.Type]func(*Scanner, unsafe.Pointer) bool
	discard []string
}

var (
	rawType   = reflect.TypeFor[json.RawMessage]()
	extraType = reflect.TypeFor[map[string]json.RawMessage]()
)

func (b *builder) build(t reflect.Type) *table {
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("jsonx: table of %s, not a struct", t))
	}
	tb := &table{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			if sf.Type.ConvertibleTo(extraType) && sf.Type.Kind() == reflect.Map {
				if tb.hasExtra {
					panic(fmt.Sprintf("jsonx: %s has two fields for unknown members", t))
				}
				tb.hasExtra, tb.extra = true, sf.Offset
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if sf.Anonymous {
			panic(fmt.Sprintf("jsonx: %s.%s: embedded fields are not supported", t, sf.Name))
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		f := field{name: name, off: sf.Offset}
		b.classify(t, sf, &f)
		tb.fields = append(tb.fields, f)
		tb.names = append(tb.names, name)
	}
	return tb
}

func (b *builder) classify(t reflect.Type, sf reflect.StructField, f *field) {
	ft := sf.Type
	if fn, ok := b.custom[ft]; ok {
		f.kind, f.custom = kCustom, fn
		return
	}
	if ft == rawType {
		f.kind = kRaw
		return
	}
	switch ft.Kind() {
	case reflect.String:
		f.kind = kString
		return
	case reflect.Bool:
		f.kind = kBool
		return
	case reflect.Int:
		f.kind = kInt
		return
	case reflect.Int64:
		f.kind = kInt64
		return
	case reflect.Float64:
		f.kind = kFloat64
		return
	case reflect.Struct:
		f.kind, f.sub = kStruct, b.build(ft)
		return
	case reflect.Pointer:
		switch e := ft.Elem(); e.Kind() {
		case reflect.String:
			f.kind = kPtrString
			return
		case reflect.Int:
			f.kind = kPtrInt
			return
		case reflect.Bool:
			f.kind = kPtrBool
			return
		case reflect.Struct:
			if _, ok := b.custom[e]; !ok {
				f.kind, f.sub, f.typ = kPtrStruct, b.build(e), e
				return
			}
		}
	case reflect.Slice:
		if e := ft.Elem(); e.Kind() == reflect.Struct {
			if _, ok := b.custom[e]; !ok {
				f.kind, f.sub, f.typ = kSlice, b.build(e), ft
				return
			}
		}
	}
	panic(fmt.Sprintf("jsonx: %s.%s: no decoder for %s (register a Custom one)", t, sf.Name, ft))
}

func (t *table) decode(p *Scanner, base unsafe.Pointer) bool {
	if p.peek() != '{' {
		return false
	}
	p.i++
	if p.peek() == '}' {
		p.i++
		return true
	}
	var seen uint64
	for {
		kb := len(p.buf)
		key, ok := p.str()
		if !ok || p.peek() != ':' {
			return false
		}
		p.i++
		idx := -1
		for j := range t.fields {
			if t.fields[j].name == key {
				idx = j
				break
			}
		}
		if idx >= 0 {
			if seen&(1<<idx) != 0 {
				return false // repeated: encoding/json's later value wins, partly merged
			}
			seen |= 1 << idx
			if !t.fields[idx].decode(p, base) {
				return false
			}
		} else if !t.unknown(p, base, key) {
			return false
		}
		p.buf = p.buf[:kb] // an escaped key's scratch space
		if more, ok := p.afterMember(); !more {
			return ok
		}
	}
}

// unknown keeps a member the struct does not declare in its Extra field
// (or drops it).
func (t *table) unknown(p *Scanner, base unsafe.Pointer, key string) bool {
	if foldsToKnown(key, t.names) {
		return false
	}
	if !t.hasExtra {
		return p.Skip()
	}
	ex := (*map[string]json.RawMessage)(unsafe.Add(base, t.extra))
	if _, dup := (*ex)[key]; dup {
		return false
	}
	v, ok := p.Raw()
	if !ok {
		return false
	}
	if *ex == nil {
		*ex = map[string]json.RawMessage{}
	}
	(*ex)[strings.Clone(key)] = v
	return true
}

// foldsToKnown reports whether encoding/json could match key to one of the
// known names case-insensitively (Unicode folding: "ſ" matches "s").
func foldsToKnown(key string, known []string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			return true
		}
	}
	for _, k := range known {
		if len(k) == len(key) && strings.EqualFold(key, k) {
			return true
		}
	}
	return false
}

func (f *field) decode(p *Scanner, base unsafe.Pointer) bool {
	ptr := unsafe.Add(base, f.off)
	switch f.kind {
	case kString:
		if p.Null() {
			return true
		}
		s, ok := p.Text()
		*(*string)(ptr) = s
		return ok
	case kDiscard:
		if p.Null() {
			return true
		}
		_, ok := p.StringView()
		return ok
	case kBool:
		if p.Null() {
			return true
		}
		v, ok := p.Bool()
		*(*bool)(ptr) = v
		return ok
	case kInt:
		if p.Null() {
			return true
		}
		n, ok := p.Int64(strconv.IntSize)
		*(*int)(ptr) = int(n)
		return ok
	case kInt64:
		if p.Null() {
			return true
		}
		n, ok := p.Int64(64)
		*(*int64)(ptr) = n
		return ok
	case kFloat64:
		if p.Null() {
			return true
		}
		v, ok := p.Float64()
		*(*float64)(ptr) = v
		return ok
	case kRaw:
		v, ok := p.Raw()
		*(*[]byte)(ptr) = v
		return ok
	case kPtrString:
		if p.Null() {
			*(**string)(ptr) = nil
			return true
		}
		s, ok := p.Text()
		*(**string)(ptr) = &s
		return ok
	case kPtrInt:
		if p.Null() {
			*(**int)(ptr) = nil
			return true
		}
		n, ok := p.Int64(strconv.IntSize)
		v := int(n)
		*(**int)(ptr) = &v
		return ok
	case kPtrBool:
		if p.Null() {
			*(**bool)(ptr) = nil
			return true
		}
		v, ok := p.Bool()
		*(**bool)(ptr) = &v
		return ok
	case kStruct:
		if p.Null() {
			return true
		}
		return f.sub.decode(p, ptr)
	case kPtrStruct:
		if p.Null() {
			*(*unsafe.Pointer)(ptr) = nil
			return true
		}
		v := reflect.New(f.typ).UnsafePointer()
		*(*unsafe.Pointer)(ptr) = v
		return f.sub.decode(p, v)
	case kSlice:
		dst := reflect.NewAt(f.typ, ptr).Elem()
		if p.Null() {
			dst.SetZero()
			return true
		}
		out := reflect.MakeSlice(f.typ, 0, 4)
		zero := reflect.Zero(f.typ.Elem())
		ok := p.Array(func(n int) bool {
			out = reflect.Append(out, zero)
			return f.sub.decode(p, out.Index(n).Addr().UnsafePointer())
		})
		dst.Set(out)
		return ok
	case kCustom:
		return f.custom(p, ptr)
	}
	return false
}
