// Package packages installs relay packages (npm, git and local sources;
// packages.md) and resolves which extensions, skills, prompt templates and
// themes are active (upstream-spec-extras.md §13).
//
// One Manager serves one working directory:
//
//	m := &packages.Manager{Cwd: cwd, AgentDir: agentDir, NpmCommand: st.NpmCommand,
//		Offline: env.Offline, ProjectTrusted: trusted, Progress: os.Stderr}
//	res := m.Resolve(ctx, st, packages.ResolveOptions{InstallMissing: true})
//	for _, e := range res.Enabled(packages.Extensions) { load(e.Path, e.Meta) }
//	for _, d := range res.Diagnostics { warn(d) }
//	once := m.ResolveSources(ctx, args.Extensions) // -e values for this run
//
// Resolve returns every resource of each kind in precedence order (project
// settings entries, project directories, user settings entries, user
// directories, packages, built-in extensions; first wins on a name), with
// disabled ones kept for `relay config`. Each carries its Meta: the
// declared package source (or local/auto/builtin), its scope
// (user/project/temporary) and its base directory. The extension host
// loads Enabled(Extensions); internal/resources adds FromPackages(Skills)
// and FromPackages(Prompts) to what it discovers itself; the TUI loads
// Enabled(Themes). Pass settings loaded with the project's trust decision:
// an untrusted project's packages, entries and .relay directories are then
// absent. For the project_trust event, resolve once with the user settings
// (user extensions decide), then again after the decision.
//
// A package is a directory with a package.json whose "relay" key (or
// "pi", for packages written for relay's parent) lists extensions,
// skills, prompts and themes as paths or globs with "!", "+" and "-"
// entries, or else conventional extensions/, skills/, prompts/ and
// themes/ directories. A settings entry in object form narrows it per kind
// (omitted = all, [] = none, "!glob", "+path", "-path"). Identity is the
// npm name, the git host and path without the ref, or a local path's
// absolute form: a project entry replaces the user entry of the same
// identity, or filters it when it has autoload false.
//
// Installs live under <agentDir>/npm (npm --prefix), <agentDir>/git/<host>/<path>
// (git clone, then the package's own dependencies), or the project's
// .relay/npm and .relay/git with -l. Nothing here runs a network command
// when Offline is set, except an explicit Install.
package packages
