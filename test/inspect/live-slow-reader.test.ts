/**
 * The live inspector and a page that stops reading: a real TCP client that reads the response's
 * first bytes and then pauses its socket (its kernel buffers fill, then the server's). Once more
 * than the server's `slowReaderLimitBytes` wait unsent for it, the server drops it — with a last
 * `slow` message saying why, which it reads once it catches up — while a reading client gets every
 * event, the session's prompts go on unblocked, and the dropped client resumes from its last id.
 * Driven by bytes received, no sleeps. The limit is 512 KiB here (the kernel holds ~4 MiB more on
 * top, whatever the limit): the default 8 MiB is checked as the server reports it, without pushing it.
 */
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { type InspectorServer, serveInspector } from "../../src/inspect/live-server.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { openStream, type SseFrame } from "./live-helpers.js";

const LIMIT = 512 * 1024;

let h: Harness | undefined;
let inspector: InspectorServer | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
	for (const socket of sockets.splice(0)) socket.destroy();
	await inspector?.close();
	h?.cleanup();
	inspector = undefined;
	h = undefined;
});

/** `GET <url>events` on a raw socket: every byte kept; `pause()` stops reading from the kernel. */
function rawStream(pageUrl: string) {
	const url = new URL("events", pageUrl);
	const socket = connect(Number(url.port), "127.0.0.1");
	sockets.push(socket);
	const chunks: Buffer[] = [];
	let bytes = 0;
	let firstData: () => void = () => {};
	const started = new Promise<void>((resolve) => {
		firstData = resolve;
	});
	socket.on("data", (chunk: Buffer) => {
		chunks.push(chunk);
		bytes += chunk.length;
		firstData();
	});
	const ended = new Promise<void>((resolve) => socket.on("close", () => resolve()));
	// `Connection: close`: the socket closes when the server ends the response (`ended`), not when the
	// server's keep-alive timeout (5 s) expires after it.
	socket.write(
		`GET ${url.pathname} HTTP/1.1\r\nHost: 127.0.0.1:${url.port}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n`,
	);
	return {
		socket,
		started,
		ended,
		bytes: () => bytes,
		/** The body's SSE messages (the chunked transfer coding's size lines taken out). */
		frames(): SseFrame[] {
			const text = Buffer.concat(chunks).toString("utf8");
			const body = text.slice(text.indexOf("\r\n\r\n") + 4).replace(/(^|\r\n)[0-9a-f]+\r\n/g, "");
			return body
				.split("\n\n")
				.filter((block) => block.trim() !== "")
				.map((block) => {
					const frame: SseFrame = { event: "message", data: "" };
					for (const line of block.split("\n")) {
						const [name, ...rest] = line.split(": ");
						if (name === "id") frame.id = rest.join(": ");
						if (name === "event") frame.event = rest.join(": ");
						if (name === "data") frame.data = rest.join(": ");
					}
					return frame;
				});
		},
	};
}

/**
 * What the kernel can hold for a client that does not read, at most: the server socket's send buffer
 * (`tcp_wmem` max, autotuned) and the client's receive buffer (`tcp_rmem` default: a reader that
 * never reads does not grow it). Past this plus the limit, the server must have dropped the client.
 */
function kernelBytes(): number {
	const max = (file: string, index: number) => Number(readFileSync(file, "utf8").trim().split(/\s+/)[index]);
	return max("/proc/sys/net/ipv4/tcp_wmem", 2) + max("/proc/sys/net/ipv4/tcp_rmem", 1);
}

describe("the live inspector and a slow page", () => {
	it("drops a page with more than the limit unsent (saying why), keeps serving the others, never holds the session", async () => {
		// No compaction: each prompt costs the same (about 3.7 KB of stream), ~1 400 prompts in all. Short
		// texts: the faux model reads the whole context per request, so a small one keeps prompts cheap
		// (the stream's payloads are cut at 160 characters anyway).
		h = await createHarness({ settings: { compaction: { enabled: false } } });
		const session = h.session;
		let settledCount = 0;
		session.subscribe((event) => {
			if (event.type === "agent_settled") settledCount++;
		});
		inspector = await serveInspector(session, { maxEvents: 200_000, slowReaderLimitBytes: LIMIT });
		expect(inspector.slowReaderLimitBytes).toBe(LIMIT);
		const slow = rawStream(inspector.url);
		await slow.started;
		slow.socket.pause();
		const reader = rawStream(inspector.url);
		await reader.started;

		// Prompts until the reading page has been sent more than the limit plus all the kernel can hold.
		const enough = LIMIT + kernelBytes() + 256 * 1024;
		let prompts = 0;
		while (reader.bytes() < enough) {
			h.setResponses([fauxAssistantMessage(`answer ${prompts}`)]);
			await session.prompt(`question ${prompts}`);
			prompts++;
			// The faux model answers in microtasks alone; a real one waits on the network. One turn of the
			// event loop lets the reading page read (it runs in this process), as it would meanwhile.
			if (prompts % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
		}
		// Every prompt settled while the slow page read nothing.
		expect(settledCount).toBe(prompts);

		slow.socket.resume();
		await slow.ended;
		const dropped = slow.frames();
		const last = dropped.at(-1)!;
		expect(last.event).toBe("slow");
		const told = JSON.parse(last.data) as { unsentBytes: number; limit: number };
		expect(told.limit).toBe(LIMIT);
		expect(told.unsentBytes).toBeGreaterThan(LIMIT);
		// It was sent what it had been sent until then, in order, and more than the limit: not dropped early.
		const slowIds = dropped.filter((f) => f.event === "lifecycle").map((f) => Number(f.id));
		expect(slowIds).toEqual(Array.from({ length: slowIds.length }, (_, i) => i + 1));
		expect(slow.bytes()).toBeGreaterThan(LIMIT);

		// The reading page has everything, and more comes after the drop.
		h.setResponses([fauxAssistantMessage("after the drop")]);
		await session.prompt("after the drop");
		session.dispose();
		await reader.ended;
		const all = reader.frames();
		const readerIds = all.filter((f) => f.event === "lifecycle").map((f) => Number(f.id));
		expect(readerIds).toEqual(Array.from({ length: readerIds.length }, (_, i) => i + 1));
		expect(readerIds.length).toBeGreaterThan(slowIds.length);
		expect(all.at(-1)).toEqual({ event: "end", data: '{"reason":"disposed","target":"session"}' });

		// The dropped page reconnects from its last id and gets exactly the rest.
		const resumed = await openStream(inspector.url, { lastEventId: String(slowIds.at(-1)) });
		await resumed.ended;
		expect([...slowIds, ...resumed.ids()]).toEqual(readerIds);
	}, 120_000);

	it("drops at 8 MiB by default; a limit that is not a positive integer is refused (INVALID_ARGUMENT)", async () => {
		h = await createHarness();
		inspector = await serveInspector(h.session);
		expect(inspector.slowReaderLimitBytes).toBe(8 * 1024 * 1024);
		for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, "1024" as unknown as number]) {
			const error = await serveInspector(h.session, { slowReaderLimitBytes: bad }).catch((e: unknown) => e);
			expect(error).toBeInstanceOf(SettleError);
			expect(error).toMatchObject({ code: "INVALID_ARGUMENT", details: { slowReaderLimitBytes: bad } });
			expect((error as Error).message).toContain("slowReaderLimitBytes must be a positive integer");
		}
		const smallest = await serveInspector(h.session, { slowReaderLimitBytes: 1 });
		expect(smallest.slowReaderLimitBytes).toBe(1);
		await smallest.close();
	});
});
