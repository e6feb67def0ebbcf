//go:build race

package anthropic

const raceEnabled = true
