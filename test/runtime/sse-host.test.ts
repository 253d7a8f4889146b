/**
 * A multi-user web backend on the SDK, over real HTTP: one session per client (its own cwd, its
 * session file under one shared agent dir), the session's events streamed to its client as
 * server-sent events, `POST prompt|steer|abort`, and a closed event stream disposes the session.
 * Twenty clients prompt at once: each stream carries only its own session's events, in the order
 * the session emitted them; a hung request is aborted over HTTP without touching the others; a
 * disconnect disposes that session alone and releases its lock.
 */

import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	type AgentSession,
	createAgentSession,
	createFauxProvider,
	type FauxProvider,
	fauxAssistantMessage,
	InMemoryModelRuntime,
	SettingsManager,
} from "../../src/index.js";

const CLIENTS = 20;
const root = mkdtempSync(join(tmpdir(), "settle-sse-host-"));
const agentDir = join(root, "agent");

interface Hosted {
	session: AgentSession;
	faux: FauxProvider;
	/** Event types in the order the session emitted them. */
	emitted: string[];
	stream?: ServerResponse;
	disposed: Promise<void>;
	markDisposed: () => void;
}
const hosted = new Map<string, Hosted>();
let server: Server;
let base: string;

async function host(id: string): Promise<Hosted> {
	const cwd = join(root, id);
	mkdirSync(cwd, { recursive: true });
	const faux = createFauxProvider();
	const modelRuntime = new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux);
	const { session } = await createAgentSession({
		cwd,
		agentDir,
		modelRuntime,
		model: faux.getModel(),
		settingsManager: SettingsManager.inMemory({ retry: { enabled: false } }),
	});
	await session.bindExtensions({});
	let markDisposed!: () => void;
	const disposed = new Promise<void>((resolve) => (markDisposed = resolve));
	const entry: Hosted = { session, faux, emitted: [], disposed, markDisposed };
	session.subscribe((event) => {
		entry.emitted.push(event.type);
		const text = event.type === "message_end" ? JSON.stringify(event.message) : "";
		entry.stream?.write(`event: ${event.type}\ndata: ${JSON.stringify({ session: id, text })}\n\n`);
	});
	hosted.set(id, entry);
	return entry;
}

beforeAll(async () => {
	server = createServer(async (req, res) => {
		const [, id, action] = (req.url ?? "").split("/");
		const entry = id ? hosted.get(id) : undefined;
		if (!entry) return void res.writeHead(404).end();
		if (action === "events") {
			res.writeHead(200, { "content-type": "text/event-stream" });
			res.write(": open\n\n");
			entry.stream = res;
			// The client went away: its session goes with it.
			res.on("close", () => {
				entry.stream = undefined;
				entry.session.dispose();
				hosted.delete(id!);
				entry.markDisposed();
			});
			return;
		}
		let body = "";
		for await (const chunk of req) body += chunk;
		try {
			if (action === "prompt") await entry.session.prompt(body);
			else if (action === "steer") await entry.session.steer(body);
			else if (action === "abort") await entry.session.abort();
			res.writeHead(200).end("ok");
		} catch (error) {
			res.writeHead(409).end(String((error as Error).message));
		}
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	for (const entry of hosted.values()) entry.session.dispose();
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
	rmSync(root, { recursive: true, force: true });
});

/** An open event stream: the events read so far, and a wait for the n-th of a type. */
async function connect(id: string) {
	const controller = new AbortController();
	const response = await fetch(`${base}/${id}/events`, { signal: controller.signal });
	const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
	const events: { type: string; session: string; text: string }[] = [];
	let buffer = "";
	const pump = async (until: () => boolean) => {
		while (!until()) {
			const { value, done } = await reader.read();
			if (done) throw new Error(`${id}: stream ended`);
			buffer += value;
			const frames = buffer.split("\n\n");
			buffer = frames.pop()!;
			for (const frame of frames) {
				const type = /^event: (.+)$/m.exec(frame)?.[1];
				const data = /^data: (.+)$/m.exec(frame)?.[1];
				if (type && data) events.push({ type, ...JSON.parse(data) });
			}
		}
	};
	return {
		events,
		until: (type: string, count: number) => pump(() => events.filter((e) => e.type === type).length >= count),
		close: () => controller.abort(),
	};
}

const post = (id: string, action: string, body = "") =>
	fetch(`${base}/${id}/${action}`, { method: "POST", body }).then(async (r) => `${r.status} ${await r.text()}`);

describe(`${CLIENTS} clients of one Node server, one session each, events over SSE`, () => {
	it("concurrent prompts stream only each client's own events; abort and disconnect touch one session", async () => {
		const ids = Array.from({ length: CLIENTS }, (_, i) => `client${i}`);
		for (const id of ids) await host(id);
		const streams = new Map(await Promise.all(ids.map(async (id) => [id, await connect(id)] as const)));

		// client0's request hangs until aborted; everyone else gets answers.
		let hungStarted!: () => void;
		const hung = new Promise<void>((resolve) => (hungStarted = resolve));
		hosted.get("client0")!.faux.setResponses([
			() => {
				hungStarted();
				return new Promise(() => {});
			},
		]);
		for (const id of ids.slice(1))
			hosted.get(id)!.faux.setResponses([fauxAssistantMessage(`${id} one`), fauxAssistantMessage(`${id} two`)]);

		const hungPrompt = post("client0", "prompt", "client0 hangs");
		const answered = Promise.all(
			ids.slice(1).map(async (id) => [await post(id, "prompt", `${id} q1`), await post(id, "prompt", `${id} q2`)]),
		);
		await hung;
		expect(await post("client0", "abort")).toBe("200 ok");
		expect(await hungPrompt).toBe("200 ok");
		expect((await answered).flat()).toEqual(Array(2 * (CLIENTS - 1)).fill("200 ok"));

		for (const id of ids) {
			const stream = streams.get(id)!;
			await stream.until("agent_settled", id === "client0" ? 1 : 2);
			const entry = hosted.get(id)!;
			// Its own events only, all of them, in the session's order.
			expect(stream.events.every((e) => e.session === id)).toBe(true);
			expect(stream.events.map((e) => e.type)).toEqual(entry.emitted);
			const texts = stream.events.map((e) => e.text).join(" ");
			expect(texts.match(/client\d+/g)?.every((name) => name === id) ?? true).toBe(true);
			if (id !== "client0") expect(texts).toContain(`${id} two`);
		}

		// One client leaves: its session is disposed and its file unlocked; the others go on.
		const leaving = hosted.get("client3")!;
		const lock = `${leaving.session.sessionFile}.lock`;
		expect(existsSync(lock)).toBe(true);
		streams.get("client3")!.close();
		await leaving.disposed;
		expect(leaving.session.isDisposed).toBe(true);
		expect(existsSync(lock)).toBe(false);
		expect(await post("client3", "prompt", "anyone?")).toBe("404 ");

		const staying = hosted.get("client4")!;
		staying.faux.setResponses([fauxAssistantMessage("client4 three")]);
		expect(await post("client4", "prompt", "client4 q3")).toBe("200 ok");
		await streams.get("client4")!.until("agent_settled", 3);
		expect(staying.session.isDisposed).toBe(false);

		for (const [id, stream] of streams) if (id !== "client3") stream.close();
		await Promise.all([...hosted.values()].map((entry) => entry.disposed));
		expect(hosted.size).toBe(0);
	}, 30_000);
});
