//go:build !unix

package llm

func processCPU() int64 { return 0 }
