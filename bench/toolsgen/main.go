// Command toolsgen writes the synthetic trees bench/tools.sh searches: a
// source tree of about -mb megabytes (with a .gitignore'd node_modules) for
// grep, and a tree of -files empty files for find.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
)

var words = []string{"func", "return", "if", "else", "for", "range", "var", "const", "type", "struct",
	"interface", "import", "package", "nil", "err", "ctx", "value", "result", "buffer", "index", "count",
	"handler", "request", "response", "client", "server", "config", "options", "logger", "cache", "token",
	"session", "message", "stream", "reader", "writer", "parse", "encode", "decode", "string", "int", "bool"}

func line(r *rand.Rand, w *bufio.Writer) {
	indent := r.Intn(4)
	for i := 0; i < indent; i++ {
		w.WriteByte('\t')
	}
	n := 3 + r.Intn(9)
	for i := 0; i < n; i++ {
		if i > 0 {
			w.WriteByte(' ')
		}
		w.WriteString(words[r.Intn(len(words))])
		if r.Intn(5) == 0 {
			fmt.Fprintf(w, "%d", r.Intn(1000))
		}
	}
	if r.Intn(20000) == 0 {
		w.WriteString(" // RELAYNEEDLE marker")
	}
	w.WriteByte('\n')
}

func writeFiles(root string, dirs, filesPerDir, fileBytes int, seed int64) error {
	var wg sync.WaitGroup
	errs := make(chan error, dirs)
	sem := make(chan struct{}, 8)
	for d := 0; d < dirs; d++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(d int) {
			defer wg.Done()
			defer func() { <-sem }()
			r := rand.New(rand.NewSource(seed + int64(d)))
			dir := filepath.Join(root, fmt.Sprintf("pkg%03d", d/10), fmt.Sprintf("sub%02d", d%10))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				errs <- err
				return
			}
			for f := 0; f < filesPerDir; f++ {
				ext := []string{".go", ".ts", ".js", ".py", ".rs"}[r.Intn(5)]
				fh, err := os.Create(filepath.Join(dir, fmt.Sprintf("file%04d%s", f, ext)))
				if err != nil {
					errs <- err
					return
				}
				w := bufio.NewWriterSize(fh, 64*1024)
				for n := 0; w.Buffered()+n < fileBytes; {
					before := w.Buffered()
					line(r, w)
					if w.Buffered() < before { // flushed
						n += before
					}
				}
				w.Flush()
				fh.Close()
			}
		}(d)
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func main() {
	src := flag.String("src", "", "source tree to create (grep)")
	mb := flag.Int("mb", 1024, "approximate size of the searched source in MB")
	many := flag.String("many", "", "tree of many small files to create (find)")
	files := flag.Int("files", 500000, "number of files in the -many tree")
	flag.Parse()
	if *src != "" {
		const fileBytes = 10 * 1024
		const filesPerDir = 100
		dirs := *mb * 1024 * 1024 / (fileBytes * filesPerDir)
		if err := writeFiles(*src, dirs, filesPerDir, fileBytes, 1); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		// an ignored node_modules of a fifth of the size
		if err := writeFiles(filepath.Join(*src, "node_modules"), max(1, dirs/5), filesPerDir, fileBytes, 99); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.WriteFile(filepath.Join(*src, ".gitignore"), []byte("node_modules/\n*.tmp\n"), 0o644)
		os.MkdirAll(filepath.Join(*src, ".git"), 0o755)
	}
	if *many != "" {
		const perDir = 100
		var wg sync.WaitGroup
		sem := make(chan struct{}, 16)
		for d := 0; d < (*files+perDir-1)/perDir; d++ {
			wg.Add(1)
			sem <- struct{}{}
			go func(d int) {
				defer wg.Done()
				defer func() { <-sem }()
				dir := filepath.Join(*many, fmt.Sprintf("a%02d", d%50), fmt.Sprintf("b%03d", d/50))
				os.MkdirAll(dir, 0o755)
				for f := 0; f < perDir; f++ {
					ext := []string{".go", ".ts", ".md", ".json", ".txt"}[(d+f)%5]
					os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d%s", f, ext)), nil, 0o644)
				}
			}(d)
		}
		wg.Wait()
		os.WriteFile(filepath.Join(*many, ".gitignore"), []byte("*.tmp\n"), 0o644)
	}
}
