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
