// The interactive pieces of @relay-harness/coding-agent extensions build
// UIs from: BorderedLoader, DynamicBorder, and the themes of Markdown,
// SelectList, SettingsList and the editor (CustomEditor is editor.mjs's).

import { Container, Spacer, Text } from "./tui-basic.mjs";
import { CancellableLoader, Loader } from "./tui-components.mjs";

const host = () => globalThis.__relayHost ?? {};

// theme is the theme components colour with: the host's (identity until
// relay sends its colours) or plain text.
function theme() {
	return host().theme ?? { fg: (_c, s) => s, bg: (_c, s) => s, bold: (s) => `\x1b[1m${s}\x1b[22m`, italic: (s) => `\x1b[3m${s}\x1b[23m` };
}

// DynamicBorder is a horizontal rule as wide as it is drawn.
export class DynamicBorder {
	constructor(color) {
		this.color = typeof color === "function" ? color : (s) => theme().fg("border", s);
	}
	invalidate() {}
	render(width) {
		return [this.color("─".repeat(Math.max(1, width)))];
	}
}

// BorderedLoader: a spinner between two rules; escape cancels it (its
// signal aborts, onAbort runs) unless cancellable is false.
export class BorderedLoader extends Container {
	constructor(tui, th, message, options) {
		super();
		th = th?.fg ? th : theme();
		this.cancellable = options?.cancellable ?? true;
		const border = (s) => th.fg("border", s);
		this.addChild(new DynamicBorder(border));
		const Kind = this.cancellable ? CancellableLoader : Loader;
		this.loader = new Kind(tui, (s) => th.fg("accent", s), (s) => th.fg("muted", s), message);
		if (!this.cancellable) this.controller = new AbortController();
		this.addChild(this.loader);
		if (this.cancellable) {
			this.addChild(new Spacer(1));
			this.addChild(new Text(th.fg("dim", "esc cancel"), 1, 0));
		}
		this.addChild(new Spacer(1));
		this.addChild(new DynamicBorder(border));
	}
	get signal() {
		return this.cancellable ? this.loader.signal : this.controller.signal;
	}
	set onAbort(fn) {
		if (this.cancellable) this.loader.onAbort = fn;
	}
	get onAbort() {
		return this.cancellable ? this.loader.onAbort : undefined;
	}
	handleInput(data) {
		if (this.cancellable) this.loader.handleInput(data);
	}
	dispose() {
		this.loader.dispose?.();
	}
}

export function getMarkdownTheme() {
	const t = theme();
	return {
		heading: (s) => t.fg("mdHeading", s),
		link: (s) => t.fg("mdLink", s),
		linkUrl: (s) => t.fg("mdLinkUrl", s),
		code: (s) => t.fg("mdCode", s),
		codeBlock: (s) => t.fg("mdCodeBlock", s),
		codeBlockBorder: (s) => t.fg("mdCodeBlockBorder", s),
		quote: (s) => t.fg("mdQuote", s),
		quoteBorder: (s) => t.fg("mdQuoteBorder", s),
		hr: (s) => t.fg("mdHr", s),
		listBullet: (s) => t.fg("mdListBullet", s),
		bold: (s) => `\x1b[1m${s}\x1b[22m`,
		italic: (s) => `\x1b[3m${s}\x1b[23m`,
		strikethrough: (s) => `\x1b[9m${s}\x1b[29m`,
		underline: (s) => `\x1b[4m${s}\x1b[24m`,
	};
}

export function getSelectListTheme() {
	const t = theme();
	return {
		selectedPrefix: (s) => t.fg("accent", s),
		selectedText: (s) => t.fg("accent", s),
		description: (s) => t.fg("muted", s),
		scrollInfo: (s) => t.fg("dim", s),
		noMatch: (s) => t.fg("warning", s),
	};
}

export function getSettingsListTheme() {
	const t = theme();
	return {
		label: (s, selected) => (selected ? t.fg("accent", s) : s),
		value: (s, selected) => (selected ? t.fg("accent", s) : t.fg("muted", s)),
		description: (s) => t.fg("dim", s),
		cursor: t.fg("accent", "→ "),
		hint: (s) => t.fg("dim", s),
	};
}

export function getEditorTheme() {
	const t = theme();
	return { borderColor: (s) => t.fg("border", s), selectList: getSelectListTheme() };
}
