/**
 * `serveInspector` over real HTTP: who gets in (token, Host), what a page receives live and on
 * reconnect (`Last-Event-ID`: no duplicates, no gaps, dropped ids said), how the stream ends
 * (target disposed, `close()`), and that nothing stays behind (port, sockets, timers, the session).
 */
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { type InspectorServer, serveInspector } from "../../src/inspect/live-server.js";
import { formatLifecycleEvent } from "../../src/inspect/trace.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { activeResources, CollectionTracker, resourcesAddedSince, tick, trackTimers } from "../lifetime/helpers.js";
import { createWorkspace, loggingFactory, startRuntime } from "../runtime/helpers.js";
import { fetchRaw, messages, openStream } from "./live-helpers.js";

let h: Harness | undefined;
let inspector: InspectorServer | undefined;
afterEach(async () => {
	await inspector?.close();
	inspector = undefined;
	h?.cleanup();
	h = undefined;
});

async function sessionInspector(options: { maxEvents?: number } = {}) {
	h = await createHarness();
	h.setResponses(Array.from({ length: 20 }, (_, i) => fauxAssistantMessage(`answer ${i}`)));
	inspector = await serveInspector(h.session, options);
	return { h, inspector };
}

const portOf = (url: string) => Number(new URL(url).port);

/** Operations the stream has seen settle (a prompt's last event is its `operation_settled`). */
const settled = (frames: Parameters<typeof messages>[0]) =>
	messages(frames).filter((m) => m.kind === "emitted" && m.line.includes("operation_settled")).length;

describe("serveInspector: access", () => {
	it("serves only with the URL's token: other paths, a changed token and other methods get an empty 404", async () => {
		const { inspector } = await sessionInspector();
		const url = new URL(inspector.url);
		expect(url.hostname).toBe("127.0.0.1");
		const token = url.pathname.split("/")[1]!;
		expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
		const changed = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
		for (const path of [
			"/",
			"/events",
			`/${changed}/`,
			`/${changed}/events`,
			`/${token}x/`,
			`/${token}/other`,
			`/${token}/events/x`,
		]) {
			const reply = await fetchRaw(inspector.url, { path });
			expect({ path, status: reply.status, body: reply.body }).toEqual({ path, status: 404, body: "" });
		}
		expect((await fetchRaw(inspector.url, { method: "POST" })).status).toBe(404);
		const page = await fetchRaw(inspector.url);
		expect(page.status).toBe(200);
		expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
		expect(page.headers["content-security-policy"]).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]{44}'/);
		expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
		expect(page.headers["content-security-policy"]).toMatch(/; frame-ancestors 'none'$/);
		const meta = String(page.headers["content-security-policy"]).replace("; frame-ancestors 'none'", "");
		expect(page.body).toContain(`<meta http-equiv="Content-Security-Policy" content="${meta}">`);
		// No CORS: no other origin's script may read anything.
		expect(Object.keys(page.headers).filter((name) => name.startsWith("access-control-"))).toEqual([]);
		// Without the trailing slash: sent to the page (its stream URL is relative).
		const bare = await fetchRaw(inspector.url, { path: `/${token}` });
		expect([bare.status, bare.headers.location]).toEqual([308, `/${token}/`]);
	});

	it("answers 403 to a Host that is not 127.0.0.1 or localhost at its port (DNS rebinding)", async () => {
		const { inspector } = await sessionInspector();
		const port = portOf(inspector.url);
		for (const host of [
			`evil.example:${port}`,
			`127.0.0.1:${port + 1}`,
			"127.0.0.1",
			`localhost.evil.example:${port}`,
			`[::1]:${port}`,
		]) {
			const page = await fetchRaw(inspector.url, { host });
			expect({ host, status: page.status, body: page.body }).toEqual({ host, status: 403, body: "" });
			const events = await fetchRaw(new URL("events", inspector.url).href, { host });
			expect(events.status).toBe(403);
		}
		expect((await fetchRaw(inspector.url, { host: `localhost:${port}` })).status).toBe(200);
	});

	it("rejects a bad port, and names a port that is taken", async () => {
		h = await createHarness();
		for (const port of [-1, 65_536, 1.5, Number.NaN]) {
			await expect(serveInspector(h.session, { port })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
		}
		inspector = await serveInspector(h.session);
		const port = portOf(inspector.url);
		const taken = await serveInspector(h.session, { port }).catch((error: unknown) => error);
		expect(taken).toBeInstanceOf(SettleError);
		expect(taken).toMatchObject({ code: "IO", details: { port } });
		expect((taken as Error).message).toContain(`Port ${port} on 127.0.0.1 is in use`);
	});
});

describe("serveInspector: the event stream", () => {
	it("sends the events so far, then each new one as it happens, with ids 1, 2, 3 … in order", async () => {
		const { h, inspector } = await sessionInspector();
		const trace = h.session.trace();
		await h.session.prompt("one");
		const stream = await openStream(inspector.url);
		expect(stream.status).toBe(200);
		expect(stream.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
		// Each starts with its own `∅ → idle (inspect)`, then the same events.
		const before = trace.events.length;
		await stream.until(() => stream.ids().length === before);
		await h.session.prompt("two");
		await stream.until((frames) => settled(frames) === 2);
		const ids = stream.ids();
		expect(ids).toEqual(ids.map((_, i) => i + 1));
		const sent = messages(stream.frames);
		expect(sent[0]).toMatchObject({ machine: "promptOperation", kind: "state", state: "idle", start: true });
		// The same lines a trace prints (times from the stream's first event).
		const origin = trace.events[0]!.at;
		expect(sent.map((m) => m.line.slice(9))).toEqual(
			trace.events.map((event) => formatLifecycleEvent(event, origin).slice(9)),
		);
		expect(sent.map((m) => m.state).filter(Boolean)).toContain("running.working");
		trace.stop();
		stream.close();
	});

	it("a page that reconnects with Last-Event-ID gets exactly the events it missed: no duplicates, no gaps", async () => {
		const { h, inspector } = await sessionInspector();
		await h.session.prompt("one");
		const first = await openStream(inspector.url);
		await first.until((frames) => settled(frames) === 1);
		const seen = first.ids();
		first.close();
		await first.ended;
		await h.session.prompt("two"); // while disconnected
		const all = await openStream(inspector.url);
		await all.until((frames) => settled(frames) === 2);
		const total = all.ids().length;
		const resumed = await openStream(inspector.url, { lastEventId: String(seen.at(-1)) });
		await resumed.until(() => resumed.ids().at(-1) === total);
		expect([...seen, ...resumed.ids()]).toEqual(Array.from({ length: total }, (_, i) => i + 1));
		expect(resumed.frames.some((f) => f.event === "dropped")).toBe(false);
		// Then it goes on live, like the others.
		await h.session.prompt("three");
		await resumed.until((frames) => settled(frames) === 2);
		await all.until((frames) => settled(frames) === 3);
		expect(resumed.ids()).toEqual(all.ids().slice(seen.length));
		// Up to date: from the next event on. Garbage or an id from another server: everything kept.
		const upToDate = await openStream(inspector.url, { lastEventId: String(all.ids().at(-1)) });
		const garbage = await openStream(inspector.url, { lastEventId: "abc" });
		const future = await openStream(inspector.url, { lastEventId: "999999" });
		await h.session.prompt("four");
		for (const s of [all, upToDate, garbage, future])
			await s.until(
				(frames) => settled(frames) >= 1 && s.ids().at(-1) === all.ids().at(-1) && settled(all.frames) === 4,
			);
		expect(upToDate.ids()[0]).toBe(all.ids()[0]! + all.ids().length - upToDate.ids().length);
		expect(upToDate.ids()).toEqual(all.ids().slice(-upToDate.ids().length));
		expect(settled(upToDate.frames)).toBe(1);
		expect(garbage.ids()).toEqual(all.ids());
		expect(future.ids()).toEqual(all.ids());
		for (const s of [all, resumed, upToDate, garbage, future]) s.close();
	});

	it("keeps the newest maxEvents only, and says which ids a page missed were dropped", async () => {
		const { h, inspector } = await sessionInspector({ maxEvents: 5 });
		await h.session.prompt("one");
		const early = await openStream(inspector.url);
		await early.until(() => early.ids().length === 5);
		const earlyLast = early.ids().at(-1)!;
		early.close();
		await h.session.prompt("two");
		await h.session.prompt("three");
		const fresh = await openStream(inspector.url);
		await fresh.until(() => fresh.ids().length === 5);
		const last = fresh.ids().at(-1)!;
		expect(last).toBeGreaterThan(earlyLast + 5);
		expect(fresh.frames[0]).toEqual({
			id: String(last - 5),
			event: "dropped",
			data: JSON.stringify({ from: 1, to: last - 5 }),
		});
		expect(fresh.ids()).toEqual([last - 4, last - 3, last - 2, last - 1, last]);
		const resumed = await openStream(inspector.url, { lastEventId: String(earlyLast) });
		await resumed.until(() => resumed.ids().length === 5);
		expect(resumed.frames[0]).toEqual({
			id: String(last - 5),
			event: "dropped",
			data: JSON.stringify({ from: earlyLast + 1, to: last - 5 }),
		});
		// Reconnecting right after the notice (its id is the last dropped one): not told twice.
		const again = await openStream(inspector.url, { lastEventId: String(last - 5) });
		await again.until(() => again.ids().length === 5);
		expect(again.frames.map((f) => f.event)).toEqual(Array(5).fill("lifecycle"));
		fresh.close();
		resumed.close();
		again.close();
	});
});

describe("serveInspector: the end", () => {
	it("disposing the session ends every stream with an `end` message; a later page gets the events and the end", async () => {
		const { h, inspector } = await sessionInspector();
		await h.session.prompt("one");
		const stream = await openStream(inspector.url);
		await stream.until((frames) => settled(frames) === 1);
		h.session.dispose();
		await stream.ended;
		expect(stream.frames.at(-1)).toEqual({ event: "end", data: '{"reason":"disposed","target":"session"}' });
		const later = await openStream(inspector.url);
		await later.ended;
		expect(later.ids()).toEqual(stream.ids());
		expect(later.frames.at(-1)).toEqual({ event: "end", data: '{"reason":"disposed","target":"session"}' });
	});

	it("a runtime: both machines, each replacing session followed, and its dispose ends the stream", async () => {
		const ws = createWorkspace();
		const faux = createFauxProvider();
		faux.setResponses([fauxAssistantMessage("first"), fauxAssistantMessage("second")]);
		const runtime = await startRuntime(loggingFactory(faux, []).factory, ws, ws.alpha);
		try {
			inspector = await serveInspector(runtime);
			const page = await fetchRaw(inspector.url);
			expect(page.body).toContain('data-machine="runtime"');
			expect(page.body).toContain('data-machine="promptOperation"');
			const stream = await openStream(inspector.url);
			await runtime.session.prompt("hi");
			await runtime.newSession();
			await runtime.session.prompt("again");
			await stream.until(
				(frames) => messages(frames).filter((m) => m.machine === "promptOperation" && m.state === "idle").length >= 4,
			);
			const sent = messages(stream.frames);
			// The second session's actor starts over (∅ → idle) after the runtime's replacement steps.
			const starts = sent.flatMap((m, i) =>
				m.machine === "promptOperation" && (m as { start?: boolean }).start ? [i] : [],
			);
			expect(starts).toHaveLength(2);
			expect(sent.slice(starts[0], starts[1]).some((m) => m.machine === "runtime" && m.state === "rebinding")).toBe(
				true,
			);
			await runtime.dispose();
			// As settle --inspect does: the inspector is closed as soon as dispose() resolves. The pages
			// were told the runtime was disposed by then, not that the inspector closed.
			await inspector.close();
			await stream.ended;
			expect(
				messages(stream.frames)
					.filter((m) => m.machine === "runtime" && m.state !== null)
					.at(-1)?.state,
			).toBe("disposed");
			expect(stream.frames.at(-1)).toEqual({ event: "end", data: '{"reason":"disposed","target":"runtime"}' });
		} finally {
			await runtime.dispose();
			ws.cleanup();
		}
	});

	it("close() ends the streams, frees the port and leaves no socket, timer or hold on the session", async () => {
		const resources = activeResources();
		const timers = trackTimers();
		const tracker = new CollectionTracker();
		let harness: Harness | undefined = await createHarness();
		harness.setResponses([fauxAssistantMessage("ok")]);
		// The session's live inspection subscriptions (private: what a subscription left behind costs per event).
		const live = (session: unknown) => (session as { inspections: { live: Set<unknown> } }).inspections.live.size;
		const subscriptions = live(harness.session);
		const server = await serveInspector(harness.session);
		expect(live(harness.session)).toBe(subscriptions + 1);
		const port = portOf(server.url);
		const stream = await openStream(server.url);
		await harness.session.prompt("hi");
		await stream.until((frames) => settled(frames) === 1);
		await server.close();
		await stream.ended;
		expect(stream.frames.at(-1)).toEqual({ event: "end", data: '{"reason":"closed","target":"session"}' });
		expect(live(harness.session)).toBe(subscriptions);
		await server.close(); // twice is fine
		// The port is free: something else can listen on it.
		const other = createServer();
		await new Promise<void>((resolve, reject) => {
			other.once("error", reject);
			other.listen(port, "127.0.0.1", resolve);
		});
		await new Promise<void>((resolve) => other.close(() => resolve()));
		// close()'s callback comes before libuv's close phase frees the handle: a turn of the loop runs
		// the check phase (setImmediate) first, then that close phase, so the second turn is after it.
		await tick();
		await tick();
		expect(resourcesAddedSince(resources)).toEqual({});
		expect(timers.pendingRefed()).toBe(0);
		timers.stop();
		// The closed inspector, still referenced, holds nothing of the session (it unsubscribed).
		tracker.track(harness.session, "session");
		const { tempDir } = harness;
		harness = undefined;
		expect(await tracker.alive()).toEqual([]);
		expect(server.url).toContain(String(port));
		await import("node:fs").then(({ rmSync }) => rmSync(tempDir, { recursive: true, force: true }));
	});
});
