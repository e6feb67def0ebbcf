// Package resources discovers skills and prompt templates
// (upstream-spec-core.md §5.3; skills.md; prompt-templates.md) and expands
// the commands that use them: "/skill:name args" and "/template args".
//
// Load walks every source once at start-up (and on /reload):
//
//	set := resources.Load(resources.Options{Cwd: cwd, AgentDir: agentDir, ProjectTrusted: trusted,
//		Skills: entries, Prompts: entries, SkillPaths: flagSkills, PromptPaths: flagPrompts})
//	for _, d := range set.Diagnostics { warn(d) }
//	section := resources.FormatSkillsPrompt(set.Skills, "read") // the "skills" system prompt section
//	text, handled, err := set.Expand(userText)                  // before the text becomes a user message
//
// Discovery: a directory holding SKILL.md is one skill (nothing below it
// is searched); other directories are searched recursively, skipping dot
// entries, node_modules and what .gitignore/.ignore/.fdignore exclude.
// Root-level *.md files of relay's skill directories are skills when their
// frontmatter has a description (in .agents/skills, .md files below the
// root are). Settings entries take "!glob", "+path" and "-path" rules;
// the rules of a settings file also filter that scope's conventional
// directories. Name collisions keep the first skill or template and add a
// collision Diagnostic.
package resources
