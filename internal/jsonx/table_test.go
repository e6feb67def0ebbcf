package jsonx

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type testInner struct {
	N int     `json:"n"`
	F float64 `json:"f"`
}

type testName string

type testStruct struct {
	S     string                     `json:"s"`
	Named testName                   `json:"named,omitempty"`
	B     bool                       `json:"b"`
	I     int                        `json:"i"`
	I64   int64                      `json:"i64"`
	F     float64                    `json:"f"`
	Raw   json.RawMessage            `json:"raw,omitempty"`
	PS    *string                    `json:"ps"`
	PI    *int                       `json:"pi"`
	PB    *bool                      `json:"pb"`
	In    testInner                  `json:"in"`
	PIn   *testInner                 `json:"pin"`
	List  []testInner                `json:"list"`
	Up    upper                      `json:"up"`
	Skip  bool                       `json:"-"`
	Extra map[string]json.RawMessage `json:"-"`
}

// upper has a custom decoder (and UnmarshalJSON for the reference).
type upper struct{ V string }

func (u *upper) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	u.V = strings.ToUpper(s)
	return nil
}

var testTable = NewTable[testStruct](Custom(func(p *Scanner, u *upper) bool {
	s, ok := p.Text()
	u.V = strings.ToUpper(s)
	return ok
}))

// reference decodes with encoding/json and collects unknown members the
// way Table does (what llm's unmarshalKnown does).
func reference(in string) (testStruct, error) {
	var v testStruct
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		return v, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal([]byte(in), &all); err != nil {
		return v, err
	}
	for _, k := range testTable.Names() {
		delete(all, k)
	}
	if len(all) > 0 {
		v.Extra = all
	}
	return v, nil
}

func TestTableMatchesEncodingJSON(t *testing.T) {
	accepted := []string{
		`{}`,
		`{"s":"a\nb","named":"n","b":true,"i":-3,"i64":9007199254740993,"f":1.5e3,"raw":{"x":[1,"y"]},"ps":"p","pi":7,"pb":false,"in":{"n":1,"f":2},"pin":{"n":3},"list":[{"n":1},{"f":0.5}],"up":"hi"}`,
		`{"s":null,"b":null,"i":null,"f":null,"raw":null,"ps":null,"pi":null,"pb":null,"in":null,"pin":null,"list":null}`,
		`{"list":[],"zzz":{"deep":[1,2,{"a":null}]},"other":"x\u00e9"}`,
		` { "s" : "héllo \ud83d\ude00" , "i" : 0 } `,
		`{"s":"bad ` + "\xff" + ` utf8","ps":"lone \ud800 x"}`,
	}
	for _, in := range accepted {
		want, err := reference(in)
		if err != nil {
			t.Fatalf("%s: reference: %v", in, err)
		}
		var got testStruct
		var p Scanner
		p.ResetBytes([]byte(in))
		if !testTable.Decode(&p, &got) || !p.End() {
			t.Errorf("%s: not decoded", in)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", in, got, want)
		}
	}
	// What encoding/json would decode differently, or rejects: the table
	// must hand these back.
	refused := []string{
		`{"s":"a","s":"b"}`, // repeated member
		`{"S":"a"}`,         // case-folded name
		`{"ſ":"a"}`,         // Unicode folding
		`{"i":1.5}`,         // fraction into an int
		`{"i":"1"}`,         // string into an int
		`{"s":1}`,           // number into a string
		`{"x":1,"x":2}`,     // repeated unknown member
		`{"s":"a"`,          // truncated
		`{"s":"ctl` + "\x01" + `"}`,
		`{"raw":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`,
		`{"list":[null]}`,
	}
	for _, in := range refused {
		var got testStruct
		var p Scanner
		p.ResetBytes([]byte(in))
		if testTable.Decode(&p, &got) && p.End() {
			t.Errorf("%s: accepted", in)
		}
	}
}

func TestTableTextCopiesUnlessShared(t *testing.T) {
	data := []byte(`{"s":"plain"}`)
	var p Scanner
	var v testStruct
	p.ResetBytes(data)
	if !testTable.Decode(&p, &v) {
		t.Fatal("not decoded")
	}
	var shared testStruct
	p.ResetShared(data)
	if !testTable.Decode(&p, &shared) {
		t.Fatal("not decoded")
	}
	copy(data[6:], "XXXXX")
	if v.S != "plain" {
		t.Errorf("copied string changed with the input: %q", v.S)
	}
	if shared.S != "XXXXX" {
		t.Errorf("shared string is not a view of the input: %q", shared.S)
	}
}

func TestNewTablePanicsOnUnsupportedField(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "Ch") {
			t.Fatalf("recovered %v", r)
		}
	}()
	NewTable[struct{ Ch chan int }]()
}

func FuzzTable(f *testing.F) {
	f.Add(`{"s":"a","i":1,"list":[{"n":2}],"x":[true]}`)
	f.Add(`{"pin":{"n":1,"f":-0.0e1},"ps":"\u0041","raw":"\\"}`)
	f.Fuzz(func(t *testing.T, in string) {
		var got testStruct
		var p Scanner
		p.ResetBytes([]byte(in))
		if !testTable.Decode(&p, &got) || !p.End() {
			return
		}
		want, err := reference(in)
		if err != nil {
			t.Fatalf("%q accepted, encoding/json: %v", in, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", in, got, want)
		}
	})
}
