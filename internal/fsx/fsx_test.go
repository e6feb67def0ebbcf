package fsx_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/fsx"
)

func TestReadFileRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{p, link} {
		got, err := fsx.ReadFile(path, 5)
		if err != nil || string(got) != "hello" {
			t.Errorf("ReadFile(%s, 5) = %q, %v; want hello", path, got, err)
		}
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := fsx.ReadFile(empty, 0); err != nil || len(got) != 0 {
		t.Errorf("ReadFile(empty, 0) = %q, %v", got, err)
	}
}

func TestReadFileTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := fsx.ReadFile(p, 9)
	var tl *fsx.TooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, fsx.ErrTooLarge) {
		t.Fatalf("ReadFile over limit: err = %v, want *TooLargeError", err)
	}
	want := p + " is too large (10 bytes, limit 9)"
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, path, kind string
	}{
		{"directory", dir, "directory"},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases, struct{ name, path, kind string }{"device", "/dev/zero", "character device"})
		link := filepath.Join(dir, "zero-link")
		if err := os.Symlink("/dev/zero", link); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, path, kind string }{"link to device", link, "character device"})
	}
	cases = append(cases, specialFiles(t, dir)...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for name, read := range map[string]func() error{
				"ReadFile": func() error { _, err := fsx.ReadFile(c.path, 1<<20); return err },
				"OpenRegular": func() error {
					f, err := fsx.OpenRegular(c.path)
					if f != nil {
						f.Close()
					}
					return err
				},
				"CheckRegular": func() error { _, err := fsx.CheckRegular(c.path); return err },
			} {
				err := read()
				var nr *fsx.NotRegularError
				if !errors.As(err, &nr) || !errors.Is(err, fsx.ErrNotRegular) {
					t.Fatalf("%s(%s): err = %v, want *NotRegularError", name, c.path, err)
				}
				if !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.kind) {
					t.Errorf("%s: error %q does not name the path and %q", name, err, c.kind)
				}
			}
		})
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := fsx.ReadFile(filepath.Join(t.TempDir(), "nope"), 10)
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want not-exist", err)
	}
}

// endless is an io.Reader like /dev/zero or `yes`.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'y'
	}
	e.n += int64(len(p))
	return len(p), nil
}

func TestReadAtMost(t *testing.T) {
	src := &endless{}
	data, truncated, err := fsx.ReadAtMost(src, 1000)
	if err != nil || !truncated || len(data) != 1000 {
		t.Fatalf("endless: len %d, truncated %v, err %v", len(data), truncated, err)
	}
	if src.n > 1<<16 {
		t.Errorf("read %d bytes from an endless source for a 1000-byte limit", src.n)
	}
	data, truncated, err = fsx.ReadAtMost(strings.NewReader("abc"), 3)
	if err != nil || truncated || string(data) != "abc" {
		t.Fatalf("exact: %q, %v, %v", data, truncated, err)
	}
	data, truncated, err = fsx.ReadAtMost(io.MultiReader(strings.NewReader("abcd")), 3)
	if err != nil || !truncated || string(data) != "abc" {
		t.Fatalf("over: %q, %v, %v", data, truncated, err)
	}
}
