/**
 * Text files saved by Windows tools: UTF-16 with its byte-order mark (PowerShell 5.1's `>` and
 * `Out-File`, Notepad's "Unicode") and UTF-8 with one. Shared by `read`, `grep`, `@file` arguments
 * and the resource loaders, so that each sees the same text.
 */
/** A UTF-16 encoding a byte-order mark names. */
export type Utf16Encoding = "utf-16le" | "utf-16be";

/**
 * The encoding a UTF-16 byte-order mark at the start of `head` names (Windows PowerShell 5.1's `>`
 * and `Out-File`, Notepad's "Unicode"), or undefined. Every other text file is read as UTF-8.
 *
 * @example
 * ```ts
 * utf16Encoding(Buffer.from([0xff, 0xfe, 0x68, 0x00])); // "utf-16le"
 * ```
 */
export function utf16Encoding(head: Uint8Array): Utf16Encoding | undefined {
	if (head[0] === 0xff && head[1] === 0xfe) return "utf-16le";
	if (head[0] === 0xfe && head[1] === 0xff) return "utf-16be";
	return undefined;
}

/**
 * A whole file's text: decoded from UTF-16 when it starts with that byte-order mark, else as UTF-8
 * (undecodable bytes become U+FFFD). The mark itself, UTF-16's or UTF-8's, is dropped: it is not
 * part of the text, and left in it hides front matter and a first line's `^`.
 *
 * @example
 * ```ts
 * decodeText(Buffer.from("\uFEFFhi", "utf16le")); // { text: "hi", decodedFrom: "utf-16le" }
 * ```
 */
export function decodeText(bytes: Uint8Array): { text: string; decodedFrom?: Utf16Encoding } {
	const encoding = utf16Encoding(bytes);
	// TextDecoder consumes the mark of its own encoding.
	if (encoding) return { text: new TextDecoder(encoding).decode(bytes), decodedFrom: encoding };
	return { text: new TextDecoder("utf-8").decode(bytes) };
}

/**
 * Says that a file was decoded from UTF-16 and that `edit` and `write` save UTF-8 only: the model
 * converts the file before changing it instead of meeting edit's refusal. `pathWord` is the file's
 * path as one shell word, for the command it suggests.
 */
export function utf16Note(encoding: Utf16Encoding, pathWord: string): string {
	const name = encoding === "utf-16le" ? "UTF-16LE" : "UTF-16BE";
	return `[Decoded from ${name} (the file starts with its byte-order mark). edit and write change UTF-8 files only: to change this one, convert it first, for example: iconv -f UTF-16 -t UTF-8 ${pathWord} > converted.txt]`;
}
