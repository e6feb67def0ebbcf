//go:build !unix

package fsx_test

import "testing"

func specialFiles(t *testing.T, dir string) []struct{ name, path, kind string } { return nil }
