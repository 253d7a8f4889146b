import { describe, expect, it } from "vitest";
import { formatSize, takeLastBytes, truncateHead, truncateLine, truncateTail } from "../../src/tools/truncate.js";

const lines = (n: number, make = (i: number) => `line ${i}`) =>
	Array.from({ length: n }, (_, i) => make(i + 1)).join("\n");

describe("formatSize", () => {
	it("prints bytes, kilobytes and megabytes like pi", () => {
		expect(formatSize(512)).toBe("512B");
		expect(formatSize(50 * 1024)).toBe("50.0KB");
		expect(formatSize(1536)).toBe("1.5KB");
		expect(formatSize(4.5 * 1024 * 1024)).toBe("4.5MB");
	});
});

describe("truncateHead", () => {
	it("leaves content within both limits untouched", () => {
		const result = truncateHead("a\nb", { maxLines: 2, maxBytes: 10 });
		expect(result).toMatchObject({ content: "a\nb", truncated: false, truncatedBy: null, totalLines: 2 });
	});

	it("cuts by lines when the line limit comes first", () => {
		const result = truncateHead(lines(10), { maxLines: 3 });
		expect(result.content).toBe("line 1\nline 2\nline 3");
		expect(result).toMatchObject({ truncated: true, truncatedBy: "lines", outputLines: 3, totalLines: 10 });
	});

	it("cuts by bytes at a line boundary when the byte limit comes first", () => {
		const result = truncateHead("aaaa\nbbbb\ncccc", { maxBytes: 10 });
		expect(result.content).toBe("aaaa\nbbbb");
		expect(result).toMatchObject({ truncatedBy: "bytes", outputLines: 2, outputBytes: 9 });
	});

	it("keeps nothing when the first line alone is over the byte limit", () => {
		const result = truncateHead(`${"x".repeat(20)}\nshort`, { maxBytes: 10 });
		expect(result).toMatchObject({ content: "", firstLineExceedsLimit: true, outputLines: 0 });
	});

	it("counts UTF-8 bytes, not characters", () => {
		const result = truncateHead("ééé\nééé", { maxBytes: 7 });
		expect(result.content).toBe("ééé");
		expect(result.totalBytes).toBe(13);
	});
});

describe("truncateTail", () => {
	it("keeps the last lines", () => {
		const result = truncateTail(lines(10), { maxLines: 2 });
		expect(result.content).toBe("line 9\nline 10");
		expect(result).toMatchObject({ truncatedBy: "lines", outputLines: 2, totalLines: 10 });
	});

	it("keeps the end of a single line larger than the byte limit, on a character boundary", () => {
		const result = truncateTail(`start\n${"é".repeat(10)}`, { maxBytes: 5 });
		expect(result.content).toBe("éé");
		expect(result).toMatchObject({ lastLinePartial: true, truncatedBy: "bytes" });
		expect(takeLastBytes("aé", 1)).toBe("");
	});
});

describe("truncateLine", () => {
	it("marks lines cut at the character limit", () => {
		expect(truncateLine("abcdef", 3)).toEqual({ text: "abc... [truncated]", wasTruncated: true });
		expect(truncateLine("abc", 3)).toEqual({ text: "abc", wasTruncated: false });
	});
});
