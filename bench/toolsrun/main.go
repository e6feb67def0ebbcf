// Command toolsrun runs one built-in tool with JSON arguments and prints its
// result, so bench/tools.sh can time relay's grep/find/bash end to end
// against ripgrep, fd and a bare shell.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/relay-agent/relay/internal/tool/builtin"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: toolsrun TOOL JSON-ARGS [repeat]")
		os.Exit(2)
	}
	cwd, _ := os.Getwd()
	t, err := builtin.New(os.Args[1], builtin.Env{Cwd: cwd, ImagesAutoResize: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	repeat := 1
	if len(os.Args) > 3 {
		fmt.Sscan(os.Args[3], &repeat)
	}
	if p := os.Getenv("TOOLSRUN_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	start := time.Now()
	for i := 0; i < repeat; i++ {
		r := t.Execute(context.Background(), []byte(os.Args[2]), nil)
		if i == repeat-1 {
			fmt.Println(r.Content.PlainText())
			if r.IsError {
				pprof.StopCPUProfile()
				os.Exit(1)
			}
		}
	}
	if repeat > 1 {
		fmt.Fprintf(os.Stderr, "%d calls, %.2f ms/call\n", repeat, float64(time.Since(start).Microseconds())/1000/float64(repeat))
	}
}
