package config

// Size limits of the files and streams relay reads whole. A larger input is
// refused with an error naming it and the limit (relay --help lists them),
// so a hostile or mistaken path (/dev/zero, a FIFO, a huge log) costs
// bounded memory and never hangs. Session files have their own, larger
// limit (session.MaxFileSize).
const (
	// MaxConfigFile bounds settings.json, models.json, auth.json,
	// trust.json, keybindings.json and theme files.
	MaxConfigFile = 4 << 20
	// MaxPromptText bounds each text @file, piped stdin, and prompt files
	// (--system-prompt, --append-system-prompt, SYSTEM.md, APPEND_SYSTEM.md).
	MaxPromptText = 4 << 20
	// MaxImageFile bounds an image @file before it is resized.
	MaxImageFile = 32 << 20
)
