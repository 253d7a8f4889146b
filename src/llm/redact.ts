/**
 * Keeps a request's credentials out of what Settle keeps and shows. A provider or proxy that
 * echoes the key it was sent ("Incorrect API key provided: sk-…") would otherwise have it written to
 * the session file, `--json` / RPC lines, traces, the live inspector and HTML exports. Pure.
 */
import { Buffer } from "node:buffer";
import type { Model, StreamOptions } from "./types.js";

/** What replaces a credential in an error text. */
export const REDACTED = "[redacted]";

/** Shorter values are not treated as secrets (`application/json`-like header values are longer, but versions and flags are not). */
const MIN_SECRET_LENGTH = 12;

/**
 * The credentials a request carries, longest first: its API key and the values of its and its
 * model's headers (and the token of a `Bearer <token>` value, the password and `user:password` a
 * `Basic` value encodes), each also as a proxy or provider may echo it — URL-encoded (a key in a
 * query string) and base64-encoded at any offset (a key inside `Basic base64(user:key)` credentials:
 * the part of the base64 text that depends on the key alone).
 *
 * @example
 * ```ts
 * const secrets = requestSecrets(undefined, { apiKey: "sk-0123456789abcdef" });
 * secrets.includes("sk-0123456789abcdef"); // true
 * redactSecrets(`Authorization: Basic ${btoa("me:sk-0123456789abcdef")}`, secrets); // "Authorization: Basic bWU6[redacted]Zg=="
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
		const [, scheme, token] = /^(bearer|basic|token)\s+(\S+)$/i.exec(trimmed) ?? [];
		if (token && token.length >= MIN_SECRET_LENGTH) found.add(token);
		if (token && scheme?.toLowerCase() === "basic") {
			const credentials = Buffer.from(token, "base64").toString("utf8");
			const password = credentials.slice(credentials.indexOf(":") + 1);
			for (const part of [credentials, password]) if (part.length >= MIN_SECRET_LENGTH) found.add(part);
		}
	};
	add(options?.apiKey);
	for (const headers of [options?.headers, model?.headers]) {
		if (headers && typeof headers === "object") for (const value of Object.values(headers)) add(value);
	}
	const withForms = new Set(found);
	for (const secret of found) for (const form of encodedForms(secret)) withForms.add(form);
	return [...withForms].sort((a, b) => b.length - a.length);
}

/**
 * `secret` URL-encoded (upper- and lower-case escapes) when that differs, and the part of its base64
 * encoding that the bytes around it cannot change, for each of the three offsets it may sit at in
 * the encoded text (plain and URL-safe alphabets): at most 2 characters of the secret stay visible
 * on each side of the `[redacted]`.
 */
function encodedForms(secret: string): string[] {
	const forms: string[] = [];
	const url = encodeURIComponent(secret);
	if (url !== secret)
		forms.push(
			url,
			url.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
		);
	const bytes = Buffer.from(secret, "utf8");
	for (let offset = 0; offset < 3; offset++) {
		const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
		// Whole 3-byte groups of the secret only: the first group holds bytes before it (offset > 0),
		// the last one bytes after it (or padding) unless the secret ends a group.
		const core = encoded.slice(offset === 0 ? 0 : 4, Math.floor((offset + bytes.length) / 3) * 4);
		if (core.length >= MIN_SECRET_LENGTH) forms.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
	}
	return forms;
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
