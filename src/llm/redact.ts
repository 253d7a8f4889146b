/**
 * Keeps a request's credentials out of what Settle keeps and shows. A provider or proxy that
 * echoes the key it was sent ("Incorrect API key provided: sk-…") would otherwise have it written to
 * the session file, `--json` / RPC lines, traces, the live inspector and HTML exports. Pure.
 */
import type { Model, StreamOptions } from "./types.js";

/** What replaces a credential in an error text. */
export const REDACTED = "[redacted]";

/** Shorter values are not treated as secrets (`application/json`-like header values are longer, but versions and flags are not). */
const MIN_SECRET_LENGTH = 12;

/**
 * The credentials a request carries: its API key and the values of its and its model's headers
 * (and the token of a `Bearer <token>` value), longest first.
 *
 * @example
 * ```ts
 * requestSecrets(undefined, { apiKey: "sk-0123456789abcdef", headers: { Authorization: "Bearer tok-0123456789ab" } });
 * // ["Bearer tok-0123456789ab", "sk-0123456789abcdef", "tok-0123456789ab"]
 * ```
 */
export function requestSecrets(
	model: Pick<Model, "headers"> | undefined,
	options: StreamOptions | undefined,
): string[] {
	const found = new Set<string>();
	const add = (value: unknown) => {
		if (typeof value !== "string") return;
		const trimmed = value.trim();
		if (trimmed.length >= MIN_SECRET_LENGTH) found.add(trimmed);
		const token = /^(?:bearer|basic|token)\s+(\S+)$/i.exec(trimmed)?.[1];
		if (token && token.length >= MIN_SECRET_LENGTH) found.add(token);
	};
	add(options?.apiKey);
	for (const headers of [options?.headers, model?.headers]) {
		if (headers && typeof headers === "object") for (const value of Object.values(headers)) add(value);
	}
	return [...found].sort((a, b) => b.length - a.length);
}

/**
 * `text` with every occurrence of each of `secrets` replaced by {@link REDACTED}.
 *
 * @example
 * ```ts
 * redactSecrets("Incorrect API key provided: sk-0123456789abcdef", ["sk-0123456789abcdef"]);
 * // "Incorrect API key provided: [redacted]"
 * ```
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
	let result = text;
	for (const secret of secrets) {
		if (result.includes(secret)) result = result.split(secret).join(REDACTED);
	}
	return result;
}
