/**
 * What is left of stdin when the CLI starts reading it. An embedder that imports the CLI
 * (`runCli`) may have touched `process.stdin` first (pi#8587): a resumed stdin may already have
 * ended, and a destroyed one never ends. Node's line reader waits for an `end` that already came,
 * or never comes; so the CLI asks here first instead of waiting forever.
 */
import type { Readable } from "node:stream";
import { SettleError } from "../errors.js";

/**
 * `"ended"`: stdin already reached its end (read as empty: no prompt, no RPC commands);
 * `"destroyed"`: it was closed before its end, so nothing can be read from it; `"open"`: readable.
 */
export function stdinState(input: Readable): "open" | "ended" | "destroyed" {
	if (input.readableEnded) return "ended";
	if (input.destroyed) return "destroyed";
	return "open";
}

/** The error for a stdin {@link stdinState} calls `"destroyed"`: what happened and what to do. */
export function destroyedStdinError(reads: string): SettleError {
	return new SettleError(
		"IO",
		`stdin was closed before settle could read ${reads}: something else in this process destroyed it. Start settle as its own process, or leave process.stdin untouched before calling runCli.`,
	);
}
