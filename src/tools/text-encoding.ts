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

/** Throws on bytes that are not UTF-8, so that {@link decodeText} decodes valid text once. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A whole file's text: decoded from UTF-16 when it starts with that byte-order mark, else as UTF-8
 * (undecodable bytes become U+FFFD, and `notUtf8` says there were some: a legacy encoding such as
 * Windows-1252 or GBK). The mark itself, UTF-16's or UTF-8's, is dropped: it is not part of the
 * text, and left in it hides front matter and a first line's `^`.
 *
 * @example
 * ```ts
 * decodeText(Buffer.from("\uFEFFhi", "utf16le")); // { text: "hi", decodedFrom: "utf-16le" }
 * decodeText(Buffer.from([0x63, 0x61, 0x66, 0xe9])); // { text: "caf\uFFFD", notUtf8: true }
 * ```
 */
export function decodeText(bytes: Uint8Array): { text: string; decodedFrom?: Utf16Encoding; notUtf8?: true } {
	const encoding = utf16Encoding(bytes);
	// TextDecoder consumes the mark of its own encoding.
	if (encoding) return { text: new TextDecoder(encoding).decode(bytes), decodedFrom: encoding };
	try {
		return { text: strictUtf8.decode(bytes) };
	} catch {
		return { text: new TextDecoder("utf-8").decode(bytes), notUtf8: true };
	}
}

/** The name of a UTF-16 encoding as the notes and results show it. */
export function utf16Name(encoding: Utf16Encoding): string {
	return encoding === "utf-16le" ? "UTF-16LE" : "UTF-16BE";
}

/**
 * Says that a file was decoded from UTF-16 and that `edit` and `write` keep that encoding and its
 * mark: the model changes the file as it would a UTF-8 one, and PowerShell 5.1 still reads it.
 *
 * @example
 * ```ts
 * utf16Note("utf-16le"); // "[Decoded from UTF-16LE (the file starts with its byte-order mark). edit and write keep …]"
 * ```
 */
export function utf16Note(encoding: Utf16Encoding): string {
	return `[Decoded from ${utf16Name(encoding)} (the file starts with its byte-order mark). edit and write keep that encoding and its mark when they change this file.]`;
}

/**
 * A file's text as the bytes `edit` and `write` save: `text` (its first character U+FEFF when the
 * file has a byte-order mark) in UTF-16 when `encoding` names it, else in UTF-8.
 *
 * @example
 * ```ts
 * encodeText("\uFEFFhi", "utf-16be"); // <Buffer fe ff 00 68 00 69>
 * ```
 */
export function encodeText(text: string, encoding?: Utf16Encoding): Buffer {
	if (encoding === undefined) return Buffer.from(text, "utf-8");
	const bytes = Buffer.from(text, "utf16le");
	return encoding === "utf-16be" ? bytes.swap16() : bytes;
}
