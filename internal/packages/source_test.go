package packages

import (
	"path/filepath"
	"testing"
)

func TestParseSource(t *testing.T) {
	for _, tc := range []struct {
		in                       string
		typ                      Type
		name, version, repo, ref string
		host, path               string
		pinned                   bool
		identity                 string
	}{
		{in: "npm:@scope/tools@1.2.3", typ: TypeNpm, name: "@scope/tools", version: "1.2.3", pinned: true, identity: "npm:@scope/tools"},
		{in: "npm:@scope/tools", typ: TypeNpm, name: "@scope/tools", identity: "npm:@scope/tools"},
		{in: "npm:tools@^1.0.0", typ: TypeNpm, name: "tools", version: "^1.0.0", identity: "npm:tools"},
		{in: "npm:tools@file:/tmp/a@b/tools-1.0.0.tgz", typ: TypeNpm, name: "tools", version: "file:/tmp/a@b/tools-1.0.0.tgz", identity: "npm:tools"},
		{in: "git:github.com/user/repo@v1", typ: TypeGit, repo: "https://github.com/user/repo", ref: "v1", host: "github.com", path: "user/repo", pinned: true, identity: "git:github.com/user/repo"},
		{in: "git:git@github.com:user/repo.git@main", typ: TypeGit, repo: "git@github.com:user/repo.git", ref: "main", host: "github.com", path: "user/repo", pinned: true, identity: "git:github.com/user/repo"},
		{in: "https://github.com/user/repo", typ: TypeGit, repo: "https://github.com/user/repo", host: "github.com", path: "user/repo", identity: "git:github.com/user/repo"},
		{in: "ssh://git@github.com/user/repo.git@abc123", typ: TypeGit, repo: "ssh://git@github.com/user/repo.git", ref: "abc123", host: "github.com", path: "user/repo", pinned: true, identity: "git:github.com/user/repo"},
		{in: "file:///tmp/repos/pkg@v2", typ: TypeGit, repo: "file:///tmp/repos/pkg", ref: "v2", host: "file", path: "tmp/repos/pkg", pinned: true, identity: "git:file/tmp/repos/pkg"},
		{in: "./local/pkg", typ: TypeLocal, identity: "local:" + filepath.Join("/base", "local/pkg")},
		{in: "/abs/pkg", typ: TypeLocal, identity: "local:/abs/pkg"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			s, err := ParseSource(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got := []any{s.Type, s.Name, s.Version, s.Repo, s.Ref, s.Host, s.Path, s.Pinned(), s.Identity("/base")}
			want := []any{tc.typ, tc.name, tc.version, tc.repo, tc.ref, tc.host, tc.path, tc.pinned, tc.identity}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("field %d = %v, want %v (source %+v)", i, got[i], want[i], s)
				}
			}
		})
	}
}

func TestParseSourceErrors(t *testing.T) {
	for _, in := range []string{"", "npm:", "git:github.com", "git:host/../x", "https://host"} {
		if _, err := ParseSource(in); err == nil {
			t.Errorf("ParseSource(%q): no error", in)
		}
	}
}
