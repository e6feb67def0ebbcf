//go:build !unix

package laya

import "time"

func cpuTime() time.Duration { return 0 }
