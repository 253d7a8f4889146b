/**
 * For the pi-examples differentials on whole runtimes: a scenario run on pi 0.73.1's
 * `createAgentSessionRuntime` and Settle's (test/parity/tree-peers.ts) with the examples loaded and
 * the scripted UI of pi-examples-peers.ts, and a real git repo to run them in.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PeerName, SharedExtension, TempDirs } from "../parity/peers.js";
import { createRuntimePeer, type RuntimePeer } from "../parity/tree-peers.js";
import { bundledExtensionAliases } from "./bundle-aliases.js";
import { EXAMPLES, type ScriptedUI, scriptedUI } from "./pi-examples-peers.js";

export function git(cwd: string, ...args: string[]): string {
	return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** A git repo in `cwd` with one commit (tracked `a.txt`), identity set locally. */
export function gitRepo(dirs: TempDirs): void {
	git(dirs.cwd, "init", "-q", "-b", "main");
	git(dirs.cwd, "config", "user.email", "dev@example.com");
	git(dirs.cwd, "config", "user.name", "Dev");
	git(dirs.cwd, "config", "commit.gpgsign", "false");
	writeFileSync(join(dirs.cwd, "a.txt"), "one\n");
	git(dirs.cwd, "add", "-A");
	git(dirs.cwd, "commit", "-q", "-m", "initial");
}

/** Runs `scenario` on pi's runtime, then Settle's, with the examples loaded and a scripted UI. */
export async function onBothRuntimesWithExamples<T>(
	names: string[],
	options: {
		answers?: unknown[];
		setup?: (dirs: TempDirs) => void;
		extensions?: SharedExtension[];
		flags?: Map<string, string | boolean>;
	},
	scenario: (peer: RuntimePeer, ui: ScriptedUI) => Promise<T>,
): Promise<{ pi: T; settle: T }> {
	const results: Partial<Record<PeerName, T>> = {};
	for (const name of ["pi", "settle"] as const) {
		const ui = scriptedUI(options.answers);
		const peer = await createRuntimePeer(name, {
			extensions: options.extensions ?? [],
			customTools: [],
			extensionPaths: names.map((example) => join(EXAMPLES, example)),
			settleExtensionAliases: bundledExtensionAliases(),
			uiContext: ui.ui,
			...(options.setup ? { setup: options.setup } : {}),
			...(options.flags ? { extensionFlagValues: options.flags } : {}),
		});
		try {
			results[name] = await scenario(peer, ui);
		} finally {
			await peer.cleanup();
		}
	}
	return results as { pi: T; settle: T };
}
