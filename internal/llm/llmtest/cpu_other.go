//go:build !unix

package llmtest

import "runtime/metrics"

// CPUSeconds estimates the CPU time used so far from the runtime's
// accounting (GOMAXPROCS x wall time minus idle time).
func CPUSeconds() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/total:cpu-seconds"}, {Name: "/cpu/classes/idle:cpu-seconds"}}
	metrics.Read(s)
	return s[0].Value.Float64() - s[1].Value.Float64()
}
