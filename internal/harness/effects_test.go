package harness

import (
	"encoding/json"
	"testing"
)

func TestClassifyCommand(t *testing.T) {
	tests := []struct {
		cmd    string
		kind   EffectKind
		masked bool
	}{
		// force push before plain push
		{"git push --force origin main", EffectDestructive, false},
		{"git push -f", EffectDestructive, false},
		{"git push --force-with-lease origin feat", EffectDestructive, false},
		{"git push origin +main", EffectDestructive, false},
		{"git push origin main", EffectExternal, false},
		{"git push", EffectExternal, false},
		// git history and working tree
		{"git reset --hard HEAD~1", EffectDestructive, false},
		{"git reset HEAD~1 --hard", EffectDestructive, false},
		{"git reset --soft HEAD~1", EffectExecute, false},
		{"git clean -fd", EffectDestructive, false},
		{"git clean -n", EffectExecute, false},
		{"git checkout .", EffectDestructive, false},
		{"git checkout -- .", EffectDestructive, false},
		{"git checkout main", EffectExecute, false},
		{"git restore .", EffectDestructive, false},
		{"git restore --staged .", EffectDestructive, false},
		{"git restore src/a.go", EffectExecute, false},
		{"git stash drop", EffectDestructive, false},
		{"git stash clear", EffectDestructive, false},
		{"git stash pop", EffectExecute, false},
		{"git branch -D feature", EffectDestructive, false},
		{"git branch -d feature", EffectExecute, false},
		{"git filter-branch --tree-filter x", EffectDestructive, false},
		{"git filter-repo --path x", EffectDestructive, false},
		{"git rebase -i HEAD~3", EffectDestructive, false},
		{"git rebase main", EffectDestructive, false},
		{"git rebase --continue", EffectExecute, false},
		{"git rebase --abort", EffectExecute, false},
		{"git rebase --skip", EffectExecute, false},
		{"git rebase --quit", EffectExecute, false},
		{"git rebase --continue && git rebase main", EffectDestructive, false},
		// deletes
		{"rm -rf build", EffectDestructive, false},
		{"rm -r build", EffectDestructive, false},
		{"rm -R build", EffectDestructive, false},
		{"rm --recursive build", EffectDestructive, false},
		{"rm -f -r build", EffectDestructive, false},
		{"rm -f out.log", EffectExecute, false},
		{"rm -f build.log", EffectExecute, false}, // check words inside file operands are not checks
		{"cat test.txt", EffectExecute, false},
		{"ls build/", EffectExecute, false},
		{"cat src/test/a_test.go", EffectExecute, false},
		{"vim app.test.ts", EffectExecute, false},
		{"./test.sh", EffectVerify, false},
		{"bash scripts/build.sh --release", EffectVerify, false},
		{"npm run build && cat build/out.txt", EffectVerify, false},
		{"npm run test:unit", EffectVerify, false},
		{"rm file.txt", EffectExecute, false},
		{"Remove-Item -Path dist -Recurse -Force", EffectDestructive, false},
		{"remove-item dist -recurse", EffectDestructive, false},
		{"rmdir /s /q dist", EffectDestructive, false},
		{"rd /s dist", EffectDestructive, false},
		{"del /s *.tmp", EffectDestructive, false},
		{"find . -name '*.o' -delete", EffectDestructive, false},
		{"find . -name '*.o'", EffectExecute, false},
		{"mkfs.ext4 /dev/sdb1", EffectDestructive, false},
		{"shred secrets.txt", EffectDestructive, false},
		{"dd if=/dev/zero of=/dev/sda", EffectDestructive, false},
		// SQL
		{`psql -c "DROP TABLE users"`, EffectDestructive, false},
		{`psql -c "drop database app"`, EffectDestructive, false},
		{`mysql -e "DROP SCHEMA s"`, EffectDestructive, false},
		{`psql -c "TRUNCATE TABLE logs"`, EffectDestructive, false},
		{`psql -c "DELETE FROM users"`, EffectDestructive, false},
		{`sqlite3 app.db "DELETE FROM users;"`, EffectDestructive, false},
		{`sqlite3 app.db 'DELETE FROM users'`, EffectDestructive, false},
		{`psql -c "DELETE FROM users WHERE id = 3"`, EffectExecute, false},
		{`sqlite3 app.db "DELETE FROM users WHERE id = 3;"`, EffectExecute, false},
		{`echo "DROP TABLE users" | psql`, EffectDestructive, false},
		// external
		{"npm publish", EffectExternal, false},
		{"pnpm publish --access public", EffectExternal, false},
		{"yarn publish", EffectExternal, false},
		{"bun publish", EffectExternal, false},
		{"cargo publish", EffectExternal, false},
		{"twine upload dist/*", EffectExternal, false},
		{"gem push x.gem", EffectExternal, false},
		{"dotnet nuget push x.nupkg", EffectExternal, false},
		{"gh pr create --fill", EffectExternal, false},
		{"gh pr merge 12 --squash", EffectExternal, false},
		{"gh pr close 12", EffectExternal, false},
		{"gh pr comment 12 -b hi", EffectExternal, false},
		{"gh pr review 12 --approve", EffectExternal, false},
		{"gh pr view 12", EffectExecute, false},
		{"gh issue create -t x", EffectExternal, false},
		{"gh issue list", EffectExecute, false},
		{"gh release create v1", EffectExternal, false},
		{"gh repo delete x/y", EffectExternal, false},
		{"kubectl apply -f k8s.yaml", EffectExternal, false},
		{"kubectl get pods", EffectExecute, false},
		{"kubectl delete pod x", EffectExternal, false},
		{"helm upgrade app ./chart", EffectExternal, false},
		{"terraform apply -auto-approve", EffectExternal, false},
		{"terraform plan", EffectExecute, false},
		{"terraform destroy", EffectExternal, false},
		{"pulumi up", EffectExternal, false},
		{"docker push ghcr.io/x/y", EffectExternal, false},
		{"docker build .", EffectVerify, false}, // "build" is a check word
		{"vercel deploy", EffectExternal, false},
		{"vercel --prod", EffectExternal, false},
		{"fly deploy", EffectExternal, false},
		{"curl -X POST https://api.example.com/x", EffectExternal, false},
		{"curl -XDELETE https://api.example.com/x", EffectExternal, false},
		{"curl -x post https://api.example.com/x", EffectExternal, false}, // case-insensitive, as the original
		{"curl --request PUT https://api.example.com/x", EffectExternal, false},
		{"curl https://example.com", EffectExecute, false},
		// mentions that only print text
		{`echo "rm -rf /"`, EffectExecute, false},
		{`echo 'git push --force'`, EffectExecute, false},
		{`printf "DROP TABLE x\n"`, EffectExecute, false},
		{`echo "rm -rf /" > notes.txt`, EffectExecute, false},
		{`echo "$(rm -rf build)"`, EffectDestructive, false},
		{`echo hi && rm -rf build`, EffectDestructive, false},
		{`echo "git push" | sh`, EffectExternal, false},
		{`FOO=1 echo "git push"`, EffectExecute, false},
		// here-documents: written or printed, not run, unless fed to a shell
		{"cat > Makefile <<'EOF'\nclean:\n\trm -rf build\nEOF", EffectExecute, false},
		{"cat <<-EOF > notes.md\n\tgit push --force is banned\n\tEOF\nls", EffectExecute, false},
		{"cat > x.sql <<EOF\nDROP TABLE users;\nEOF\npsql -f x.sql", EffectExecute, false},
		{"cat <<EOF | sh\nrm -rf build\nEOF", EffectDestructive, false},
		{"psql <<SQL\nDROP TABLE users;\nSQL", EffectDestructive, false},
		{"cat > a.txt <<EOF\n$(rm -rf build)\nEOF", EffectDestructive, false},
		{"cat > a <<EOF\nx\nEOF\nrm -rf build", EffectDestructive, false},
		{"cat > t.sh <<EOF\nnpm test\nEOF", EffectExecute, false},
		{"cat <<< 'rm -rf x'", EffectExecute, false}, // a here-string fed to cat only prints
		{"bash <<< 'rm -rf x'", EffectDestructive, false},
		// verification
		{"npm test", EffectVerify, false},
		{"go test ./...", EffectVerify, false},
		{"go vet ./... && go test ./...", EffectVerify, false},
		{"npm test && echo ok", EffectVerify, false},
		{"cd web && npx tsc --noEmit", EffectVerify, false},
		{"pytest -q", EffectVerify, false},
		{"cargo clippy", EffectVerify, false},
		{"npx prettier --check .", EffectVerify, false},
		{"node --test", EffectVerify, false},
		{"npm test | tail -20", EffectExecute, true},
		{"set -o pipefail; npm test | tail -20", EffectVerify, false},
		{"npm test || true", EffectExecute, true},
		{"npm test; echo done", EffectExecute, true},
		{"npm test\necho done", EffectExecute, true},
		{"go test ./... 2>&1 | tail", EffectExecute, true},
		{`echo "run npm test"`, EffectExecute, false},
		{"ls -la", EffectExecute, false},
		{"cat main.go", EffectExecute, false},
	}
	for _, tt := range tests {
		got := ClassifyCommand(tt.cmd, nil)
		if got.Kind != tt.kind || got.MaskedCheck != tt.masked {
			t.Errorf("ClassifyCommand(%q) = %s masked=%v, want %s masked=%v (reason %q)", tt.cmd, got.Kind, got.MaskedCheck, tt.kind, tt.masked, got.Reason)
		}
		if got.Kind.NeedsAuthorization() && got.Reason == "" {
			t.Errorf("ClassifyCommand(%q): no reason", tt.cmd)
		}
	}
}

func TestClassifyDeclaredVerifyCommands(t *testing.T) {
	declared := []string{"npm run check", "./test.sh"}
	tests := []struct {
		cmd  string
		kind EffectKind
	}{
		{"npm run check", EffectVerify},
		{"npm   run\tcheck", EffectVerify},
		{"cd pkg && npm run check", EffectVerify},
		{"./test.sh --fast", EffectVerify},
		{"npx tsc", EffectExecute}, // a common check no longer counts
		{"npm test", EffectExecute},
		{"npm run check | tail", EffectExecute},
		{"npm run check; ./test.sh", EffectVerify}, // the latest one is unmasked
		{"./test.sh; npm run checkout", EffectExecute},
	}
	for _, tt := range tests {
		if got := ClassifyCommand(tt.cmd, declared); got.Kind != tt.kind {
			t.Errorf("ClassifyCommand(%q, declared) = %s, want %s", tt.cmd, got.Kind, tt.kind)
		}
	}
}

func TestClassifyTools(t *testing.T) {
	tests := []struct {
		tool, args string
		kind       EffectKind
		paths      []string
	}{
		{"read", `{"path":"a.go"}`, EffectRead, []string{"a.go"}},
		{"Grep", `{"pattern":"x"}`, EffectRead, nil},
		{"ls", `{}`, EffectRead, nil},
		{"edit", `{"path":"a.go","edits":[]}`, EffectWrite, []string{"a.go"}},
		{"write", `{"file_path":"b.md","content":"x"}`, EffectWrite, []string{"b.md"}},
		{"notebook_edit", `{"notebook_path":"n.ipynb"}`, EffectWrite, []string{"n.ipynb"}},
		{"apply_patch", `{}`, EffectWrite, nil},
		{"bash", `{"command":"rm -rf build"}`, EffectDestructive, nil},
		{"powershell", `{"command":"Remove-Item dist -Recurse"}`, EffectDestructive, nil},
		{"shell", `{"cmd":"npm test"}`, EffectVerify, nil},
		{"exec", `{"script":"git push"}`, EffectExternal, nil},
		{"bash", `not json`, EffectExecute, nil},
		{"codemode", `{"code":"x"}`, EffectExecute, nil},
		{"mcp__fs__write", `{"path":"x"}`, EffectExecute, []string{"x"}},
	}
	for _, tt := range tests {
		got := Classify(tt.tool, json.RawMessage(tt.args), nil)
		if got.Kind != tt.kind || len(got.Paths) != len(tt.paths) || (len(tt.paths) > 0 && got.Paths[0] != tt.paths[0]) {
			t.Errorf("Classify(%s, %s) = %+v, want %s %v", tt.tool, tt.args, got, tt.kind, tt.paths)
		}
	}
}

func TestShellSegments(t *testing.T) {
	segs := shellSegments(`a "x;y" | b 2>&1 && c; d || e`)
	var got []string
	cmd := `a "x;y" | b 2>&1 && c; d || e`
	for _, s := range segs {
		got = append(got, cmd[s.start:s.end])
	}
	want := []string{`a "x;y" `, ` b 2>&1 `, ` c`, ` d `, ` e`}
	if len(got) != len(want) {
		t.Fatalf("segments %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("segments %q, want %q", got, want)
		}
	}
	if !segs[0].pipedOut || segs[1].pipedOut {
		t.Fatalf("pipedOut wrong: %+v", segs)
	}
}

func FuzzClassifyCommand(f *testing.F) {
	for _, seed := range []string{"rm -rf build", "cat <<'EOF' > a\nx\nEOF", "echo \"a;b\" | sh", "a\\", "cat <<", "cat <<-", "x <<'E", `"unterminated`, "git push -f && npm test || true"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		segs := shellSegments(cmd)
		prev := 0
		for _, s := range segs {
			if s.start < prev || s.end < s.start || s.end > len(cmd) {
				t.Fatalf("bad segment %+v in %q", s, cmd)
			}
			prev = s.end
		}
		if masked := maskPrintedText(cmd); len(masked) != len(cmd) {
			t.Fatalf("masking changed the length of %q", cmd)
		}
		ClassifyCommand(cmd, []string{"npm run check"})
	})
}
