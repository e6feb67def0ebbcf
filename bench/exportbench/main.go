// Command exportbench measures the HTML export (bench/export.sh drives it).
//
//	exportbench export IN.jsonl OUT.html   # export time (run it under time -v for RSS)
//	exportbench load PAGE.html [runs]      # headless Chromium: load event and first screen
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/relay-agent/relay/internal/export"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: exportbench export IN OUT | load PAGE [runs]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "export":
		if len(os.Args) < 4 {
			err = fmt.Errorf("export needs IN and OUT")
			break
		}
		start := time.Now()
		var out string
		out, err = export.File(os.Args[2], os.Args[3])
		if err == nil {
			st, _ := os.Stat(out)
			fmt.Printf("export: %.0f ms, %.1f MB page\n", float64(time.Since(start).Microseconds())/1000, float64(st.Size())/(1<<20))
		}
	case "load":
		runs := 3
		if len(os.Args) > 3 {
			runs, _ = strconv.Atoi(os.Args[3])
		}
		err = load(os.Args[2], runs)
	default:
		err = fmt.Errorf("unknown command %s", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "exportbench:", err)
		os.Exit(1)
	}
}

// load opens the page in a fresh headless Chromium per run and reports the
// navigation's load event and the moment the page's script had drawn the
// first screen (relayReadyMs), both from navigation start.
func load(page string, runs int) error {
	bin := ""
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		return fmt.Errorf("chromium not installed")
	}
	abs, err := filepath.Abs(page)
	if err != nil {
		return err
	}
	for r := 0; r < runs; r++ {
		dir, err := os.MkdirTemp("", "exportbench-profile-")
		if err != nil {
			return err
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
			chromedp.Flag("disable-quic", true), chromedp.UserDataDir(dir), chromedp.WindowSize(1280, 900))
		actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelC := chromedp.NewContext(actx)
		ctx, cancelT := context.WithTimeout(ctx, 5*time.Minute)
		// Start the browser first so its start-up is not counted.
		err = chromedp.Do(ctx, chromedp.Navigate("about:blank"))
		var loadMs, readyMs float64
		if err == nil {
			err = chromedp.Do(ctx, chromedp.Navigate("file://"+abs))
		}
		// The first poll can land in the replaced page's context: retry.
		for try := 0; err == nil && try < 5; try++ {
			err = chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`performance.getEntriesByType('navigation')[0] && performance.getEntriesByType('navigation')[0].loadEventEnd > 0`, chromedp.WithPollingTimeout(3*time.Minute)))
			if err != nil && strings.Contains(err.Error(), "context") {
				err = nil
				continue
			}
			break
		}
		var scriptMs float64
		if err == nil {
			scriptMs, err = chromedp.Run(ctx, chromedp.Evaluate[float64](`window.relayScriptStartMs || 0`))
		}
		if err == nil {
			loadMs, err = chromedp.Run(ctx, chromedp.Evaluate[float64](`performance.getEntriesByType('navigation')[0].loadEventEnd`))
		}
		if err == nil {
			readyMs, err = chromedp.Run(ctx, chromedp.Evaluate[float64](`window.relayReadyMs || 0`))
		}
		// Search: the first query builds the search text of every entry.
		var searchMs []float64
		for _, q := range []string{"lazy dog", "carefully relay"} {
			if err != nil {
				break
			}
			var ms float64
			ms, err = chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise(function(done){
				var box = document.getElementById('tree-search'), status = document.getElementById('tree-status');
				var before = status.textContent, t0 = performance.now();
				new MutationObserver(function(){ done(performance.now() - t0); }).observe(status, {childList: true, characterData: true, subtree: true});
				box.value = `+strconv.Quote(q)+`; box.dispatchEvent(new Event('input'));
			})`, chromedp.EvalAwaitPromise))
			searchMs = append(searchMs, ms)
		}
		cancelT()
		cancelC()
		cancelA()
		os.RemoveAll(dir)
		if err != nil {
			return err
		}
		fmt.Printf("load event %.0f ms (HTML parsed, script started at %.0f ms, first screen drawn at %.0f ms); search: first %.0f ms, next %.0f ms (incl. 150 ms typing debounce on large pages)\n", loadMs, scriptMs, readyMs, searchMs[0], searchMs[1])
	}
	return nil
}
