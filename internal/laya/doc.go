// Package laya is the adaptive router behind the virtual model laya/auto:
// it assesses each request (learned-task memory, the Laya classifier,
// keyword rules in English and Portuguese), applies deterministic policy
// floors, and picks the cheapest model with credentials likely to succeed,
// escalating when the work fails. It also owns the classifier client, the
// memory of learned tasks, telemetry, /laya learn's dataset and the Docker
// runtime of the Laya server.
//
// Files by concept: model.go (the virtual model, tiers), questions.go and
// assessment.go (the classifier contract), client.go (System One),
// rules.go (keyword fallback), policy.go (floors), selection.go (registry,
// utility, quota), router.go (per-request pipeline and state), plan.go
// (plan message, skills, tool routing), memory.go, dataset.go, seed.go,
// learn.go (/laya learn and laya_learn), telemetry.go, docker.go.
package laya
