package keymap

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// ids.go declares exactly one ID per row of the action table, spelled as
// the table spells it, so a renamed or added action cannot drift.
func TestIDsMatchTheTable(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "ids.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			for _, v := range s.(*ast.ValueSpec).Values {
				lit := v.(*ast.CompositeLit).Elts[0].(*ast.BasicLit).Value
				declared[lit[1:len(lit)-1]] = true
			}
		}
	}
	table := map[string]bool{}
	for _, a := range actionTable() {
		table[a.ID] = true
		if !declared[a.ID] {
			t.Errorf("action %s has no ID in ids.go", a.ID)
		}
	}
	for id := range declared {
		if !table[id] {
			t.Errorf("ids.go declares %s, which the table lacks", id)
		}
	}
	km := New(Unix)
	if km.Label(AppClear) == "" || km.Label(SelectConfirm) == "" {
		t.Error("typed ids do not reach the bindings")
	}
}
