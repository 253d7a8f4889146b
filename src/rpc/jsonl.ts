/**
 * Strict JSON-lines framing (as pi's modes/rpc/jsonl.js): records end at LF only. JSON strings may
 * hold U+2028 / U+2029, which line readers that split on Unicode separators would cut.
 */
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";

/** Calls `onLine` with each LF-terminated line of `stream` (a trailing CR removed; the last unterminated line at the end). */
export function attachJsonLineReader(stream: Readable, onLine: (line: string) => void): void {
	const decoder = new StringDecoder("utf8");
	let buffer = "";
	const emit = (line: string) => onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
	stream.on("data", (chunk: Buffer | string) => {
		buffer += typeof chunk === "string" ? chunk : decoder.write(chunk);
		let newline = buffer.indexOf("\n");
		while (newline !== -1) {
			emit(buffer.slice(0, newline));
			buffer = buffer.slice(newline + 1);
			newline = buffer.indexOf("\n");
		}
	});
	stream.on("end", () => {
		buffer += decoder.end();
		if (buffer.length > 0) emit(buffer);
		buffer = "";
	});
}

/**
 * Characters `JSON.stringify` leaves raw that a terminal or a JavaScript-era line reader may act on:
 * the C1 controls U+0080–U+009F (U+009B is CSI, an escape sequence's start on terminals that take
 * 8-bit controls, U+009D starts an OSC) and the line / paragraph separators U+2028 / U+2029.
 */
const UNSAFE_IN_JSON_LINES = /[\u0080-\u009f\u2028\u2029]/g;

/**
 * A lone surrogate as `JSON.stringify` writes it (a pair stays raw), after an even run of backslashes:
 * strict readers (serde_json, Go's and Python's UTF-8 encoders) refuse it or cannot re-encode it.
 */
const LONE_SURROGATE_ESCAPE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

/**
 * `value` as one JSON line (with its `\n`) for `--json` and RPC output: `JSON.stringify`, with the C1
 * controls and U+2028 / U+2029 written as `\u0080`…`\u009f`, `\u2028`, `\u2029` escapes, so a
 * `--json` stream piped to a terminal cannot drive it, and a lone surrogate (half an emoji a model
 * streamed) as `\ufffd`, what any UTF-8 reader makes of it. Otherwise the same JSON: `JSON.parse`
 * gives the same value.
 *
 * @example
 * ```ts
 * jsonLine({ text: "\u009b31mred" }); // '{"text":"\\u009b31mred"}\n'
 * JSON.parse(jsonLine({ text: "\u009b31mred" })).text === "\u009b31mred"; // true
 * ```
 */
export function jsonLine(value: unknown): string {
	let line = JSON.stringify(value);
	if (line.includes("\\ud")) line = line.replace(LONE_SURROGATE_ESCAPE, "$1\\ufffd");
	return `${line.replace(UNSAFE_IN_JSON_LINES, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`;
}
