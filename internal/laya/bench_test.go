package laya

import (
	"testing"
	"time"
)

func BenchmarkRuleAssessment(b *testing.B) {
	for i := 0; i < b.N; i++ {
		RuleAssessment("Corrija o texto do botão Salvar na tela de pedidos, está cortado")
	}
}

func BenchmarkPlan(b *testing.B) {
	r := New(Config{MinConfidence: 0.5}, testModels("anthropic", "google"))
	a := RuleAssessment("Fix the race condition in workers")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Plan("Fix the race condition in workers", a); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMemoryRoute matches a request against 200 learned tasks over the
// seeded dataset (the index is built once; only the query is vectorized).
func BenchmarkMemoryRoute(b *testing.B) {
	home := b.TempDir()
	var ex []Exercise
	for _, row := range SeedRows(200) {
		ex = append(ex, Exercise{Request: row.State.Request + " " + row.ID, Labels: row.Expected, Lesson: "x"})
	}
	if _, err := MergeExercises(DatasetPath(home), ex, time.Unix(0, 0)); err != nil {
		b.Fatal(err)
	}
	m := NewMemory(DatasetPath(home))
	m.Size()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Route("Corrija o texto do botão Salvar na tela de pedidos, está cortado")
	}
}
