/**
 * `createInspectorHandler` on a host's own node:http server: two sessions' inspectors mounted under
 * their own base paths on one port, each page streaming its own session's events (real SSE client,
 * and the page itself in Chromium), the host's other routes untouched, the same token/CSP/Host rules
 * as `serveInspector`, and the end of one inspector (close, or its session disposed) ending only its
 * own streams.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { createInspectorHandler, type InspectorHandler } from "../../src/inspect/live-server.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { openChromium } from "./chromium.js";
import { loadLivePage, PLAYWRIGHT_DEFAULT_VIEWPORT } from "./live-browser.js";
import { fetchRaw, messages, openStream, type SseFrame } from "./live-helpers.js";

const harnesses: Harness[] = [];
const handlers: InspectorHandler[] = [];
const hosts: Server[] = [];
let closeBrowser: (() => Promise<void>) | undefined;
afterEach(async () => {
	await closeBrowser?.();
	closeBrowser = undefined;
	for (const handler of handlers.splice(0)) await handler.close();
	for (const server of hosts.splice(0)) {
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}
	for (const h of harnesses.splice(0)) h.cleanup();
});

/** Operations the stream has seen settle (a prompt's last event is its `operation_settled`). */
const settled = (frames: readonly SseFrame[]) =>
	messages(frames).filter((m) => m.kind === "emitted" && m.line.includes("operation_settled")).length;

async function session() {
	const h = await createHarness();
	h.setResponses(Array.from({ length: 10 }, (_, i) => fauxAssistantMessage(`answer ${i}`)));
	harnesses.push(h);
	return h;
}

/** A host server: the inspectors (`mounted`, as it is at each request) first, then its own routes (`host <path>`). */
async function hostServer(mounted: InspectorHandler[]) {
	const server = createServer((request, response) => {
		for (const handler of mounted) if (handler.handle(request, response)) return;
		response.writeHead(200, { "content-type": "text/plain" }).end(`host ${request.url}`);
	});
	hosts.push(server);
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Two sessions, each inspected under its own base path on one host server. */
async function twoSessions() {
	const a = await session();
	const b = await session();
	const inA = createInspectorHandler(a.session, { basePath: "/sessions/a/inspect" });
	const inB = createInspectorHandler(b.session, { basePath: "/sessions/b/inspect/" });
	handlers.push(inA, inB);
	const origin = await hostServer([inA, inB]);
	return { a, b, inA, inB, origin, urlA: inA.url(origin), urlB: inB.url(origin) };
}

describe("createInspectorHandler on the host's server", () => {
	it("two sessions on one port: each page and stream is its own session's, the host's routes stay its own", async () => {
		const { a, b, inA, inB, origin, urlA, urlB } = await twoSessions();
		expect(inA.path).toMatch(/^\/sessions\/a\/inspect\/[A-Za-z0-9_-]{43}\/$/);
		expect(inB.path).toMatch(/^\/sessions\/b\/inspect\/[A-Za-z0-9_-]{43}\/$/);
		expect(urlA).toBe(`${origin}${inA.path}`);
		expect(inA.slowReaderLimitBytes).toBe(8 * 1024 * 1024);
		const pageA = await fetchRaw(urlA);
		const pageB = await fetchRaw(urlB);
		expect([pageA.status, pageB.status]).toEqual([200, 200]);
		expect(pageA.body).toContain(`session ${a.session.sessionId}`);
		expect(pageB.body).toContain(`session ${b.session.sessionId}`);
		expect(pageA.headers["content-security-policy"]).toMatch(
			/script-src 'sha256-[A-Za-z0-9+/=]{44}'.*; frame-ancestors 'none'$/,
		);

		const streamA = await openStream(urlA);
		const streamB = await openStream(urlB);
		await a.session.prompt("one");
		await a.session.prompt("two");
		await streamA.until((frames) => settled(frames) === 2);
		await b.session.prompt("three");
		await streamB.until((frames) => settled(frames) === 1);
		// Each stream numbers its own session's events 1, 2, 3 …, and none of the other's.
		expect(settled(streamA.frames)).toBe(2);
		expect(settled(streamB.frames)).toBe(1);
		expect(streamA.ids()).toEqual(streamA.ids().map((_, i) => i + 1));
		expect(streamB.ids()).toEqual(streamB.ids().map((_, i) => i + 1));
		expect(streamB.ids().length).toBeLessThan(streamA.ids().length);

		// Outside the base paths (a lookalike prefix included): the host answers.
		for (const path of ["/", "/sessions/a", "/sessions/a/inspectx", "/sessions/a/inspect-old/x", "/other?x=1"]) {
			const reply = await fetchRaw(origin, { path });
			expect({ path, status: reply.status, body: reply.body }).toEqual({ path, status: 200, body: `host ${path}` });
		}
		streamA.close();
		streamB.close();
	});

	it("under its base path the token rules as serveInspector's: an empty 404, a 308 to the page, Host as allowed", async () => {
		const { inA, inB, origin } = await twoSessions();
		const token = inA.path.split("/")[4]!;
		const changed = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
		const tokenB = inB.path.split("/")[4]!;
		for (const path of [
			"/sessions/a/inspect",
			"/sessions/a/inspect/",
			"/sessions/a/inspect/events",
			`/sessions/a/inspect/${changed}/`,
			`/sessions/a/inspect/${changed}/events`,
			`/sessions/a/inspect/${tokenB}/`, // the other session's token
			`/sessions/a/inspect/${token}x/`,
			`/sessions/a/inspect/${token}/other`,
			`/sessions/a/inspect/${token}/events/x`,
		]) {
			const reply = await fetchRaw(origin, { path });
			expect({ path, status: reply.status, body: reply.body }).toEqual({ path, status: 404, body: "" });
		}
		expect((await fetchRaw(inA.url(origin), { method: "POST" })).status).toBe(404);
		const bare = await fetchRaw(origin, { path: `/sessions/a/inspect/${token}` });
		expect([bare.status, bare.headers.location]).toEqual([308, inA.path]);
		expect(Object.keys(bare.headers).filter((name) => name.startsWith("access-control-"))).toEqual([]);
		// Every Host by default (the host's server decides who reaches it) …
		expect((await fetchRaw(inA.url(origin), { host: "inspect.example" })).status).toBe(200);

		// … or only the allowed ones, any case (the port is known once the host listens).
		const h = await session();
		const mounted: InspectorHandler[] = [];
		const other = await hostServer(mounted);
		const port = new URL(other).port;
		const strict = createInspectorHandler(h.session, { basePath: "/c", allowedHosts: [`LocalHost:${port}`] });
		handlers.push(strict);
		mounted.push(strict);
		const replies = await Promise.all(
			[
				`localhost:${port}`,
				`LOCALHOST:${port}`,
				`127.0.0.1:${port}`,
				"evil.example",
				`localhost:${Number(port) + 1}`,
			].map(async (name) => {
				const page = await fetchRaw(strict.url(other), { host: name });
				const events = await fetchRaw(new URL("events", strict.url(other)).href, { host: name, method: "HEAD" });
				return [name, page.status, page.body === "", events.status];
			}),
		);
		expect(replies).toEqual([
			[`localhost:${port}`, 200, false, 200],
			[`LOCALHOST:${port}`, 200, false, 200],
			[`127.0.0.1:${port}`, 403, true, 403],
			["evil.example", 403, true, 403],
			[`localhost:${Number(port) + 1}`, 403, true, 403],
		]);
		// Outside its base path the Host is the host's business.
		expect((await fetchRaw(other, { path: "/x", host: "evil.example" })).body).toBe("host /x");
	});

	it("close() ends that inspector's streams only; its paths go back to the host; the session is let go", async () => {
		const { a, b, inA, urlA, urlB } = await twoSessions();
		const live = (s: unknown) => (s as { inspections: { live: Set<unknown> } }).inspections.live.size;
		const watchedA = live(a.session);
		const streamA = await openStream(urlA);
		const streamB = await openStream(urlB);
		await a.session.prompt("one");
		await streamA.until((frames) => settled(frames) === 1);
		await inA.close();
		await streamA.ended;
		expect(streamA.frames.at(-1)).toEqual({ event: "end", data: '{"reason":"closed","target":"session"}' });
		expect(live(a.session)).toBe(watchedA - 1);
		await inA.close(); // twice is fine
		// The other session's stream goes on, live.
		await b.session.prompt("two");
		await streamB.until((frames) => settled(frames) === 1);
		expect(streamB.frames.some((f) => f.event === "end")).toBe(false);
		// A closed inspector answers nothing: the host does (and may mount a new one there).
		const page = await fetchRaw(urlA);
		expect([page.status, page.body]).toEqual([200, `host ${inA.path}`]);
		expect((await fetchRaw(urlB)).status).toBe(200);
		streamB.close();
	});

	it("disposing a session ends its stream (and a later page gets the events and the end); the other goes on", async () => {
		const { a, b, urlA, urlB } = await twoSessions();
		const streamA = await openStream(urlA);
		const streamB = await openStream(urlB);
		await a.session.prompt("one");
		await streamA.until((frames) => settled(frames) === 1);
		a.session.dispose();
		await streamA.ended;
		const end = { event: "end", data: '{"reason":"disposed","target":"session"}' };
		expect(streamA.frames.at(-1)).toEqual(end);
		const later = await openStream(urlA);
		await later.ended;
		expect([later.ids(), later.frames.at(-1)]).toEqual([streamA.ids(), end]);
		await b.session.prompt("two");
		await streamB.until((frames) => settled(frames) === 1);
		expect(streamB.frames.some((f) => f.event === "end")).toBe(false);
		streamB.close();
	});

	it("rejects a bad base path, token, limit or origin with INVALID_ARGUMENT saying what to give", async () => {
		const h = await session();
		const bad = (options: Parameters<typeof createInspectorHandler>[1]) => {
			try {
				handlers.push(createInspectorHandler(h.session, options));
				return undefined;
			} catch (error) {
				return error;
			}
		};
		for (const basePath of ["inspect", "/a//b", "/a/../b", "/a/./b", "/a b", "/a?b", "//"]) {
			const error = bad({ basePath });
			expect(error, basePath).toBeInstanceOf(SettleError);
			expect(error).toMatchObject({ code: "INVALID_ARGUMENT", details: { basePath } });
			expect((error as Error).message).toContain("createInspectorHandler: basePath must be a path");
		}
		for (const token of ["short", "x".repeat(15), "has space in it!", "a/b/c/d/e/f/g/h/i", "x".repeat(513)]) {
			expect(bad({ token })).toMatchObject({ code: "INVALID_ARGUMENT", details: { tokenLength: token.length } });
		}
		for (const slowReaderLimitBytes of [0, -1, 1.5, Number.NaN]) {
			expect(bad({ slowReaderLimitBytes })).toMatchObject({ code: "INVALID_ARGUMENT" });
		}
		// A token of the host's own, and "/" for a server of its own.
		const own = createInspectorHandler(h.session, { basePath: "/", token: "x".repeat(16), slowReaderLimitBytes: 1 });
		handlers.push(own);
		expect([own.path, own.slowReaderLimitBytes]).toEqual([`/${"x".repeat(16)}/`, 1]);
		const origin = await hostServer([own]);
		expect((await fetchRaw(own.url(origin))).status).toBe(200);
		expect((await fetchRaw(origin, { path: "/anything" })).status).toBe(404);
		for (const notOrigin of ["not a url", "localhost:3000", ""]) {
			expect(() => own.url(notOrigin)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
		}
	});
});

describe("the mounted page in Chromium", () => {
	it("two sessions' pages on one port each follow their own session, and one's close leaves the other live", async () => {
		const { a, b, inA, urlA, urlB } = await twoSessions();
		const chromium = await openChromium();
		closeBrowser = chromium.close;
		const pageA = await loadLivePage(chromium.browser, urlA, { viewport: PLAYWRIGHT_DEFAULT_VIEWPORT });
		const pageB = await loadLivePage(chromium.browser, urlB, { viewport: PLAYWRIGHT_DEFAULT_VIEWPORT });
		expect(await pageA.page.title()).toContain(a.session.sessionId);
		expect(await pageB.page.title()).toContain(b.session.sessionId);
		await a.session.prompt("one");
		await a.session.prompt("two");
		await b.session.prompt("three");
		const done = (page: typeof pageA.page, n: number) =>
			page
				.locator("li.kind-emitted", { hasText: "operation_settled" })
				.nth(n - 1)
				.waitFor();
		await done(pageA.page, 2);
		await done(pageB.page, 1);
		expect(await pageB.page.locator("li.kind-emitted", { hasText: "operation_settled" }).count()).toBe(1);
		await inA.close();
		await pageA.page.locator("#status", { hasText: "ended" }).waitFor();
		expect(await pageA.page.locator("#status").textContent()).toBe("ended: the inspector was closed");
		await b.session.prompt("four");
		await done(pageB.page, 2);
		expect(await pageB.page.locator("#status").textContent()).toBe("live");
		expect([pageA.problems, pageB.problems]).toEqual([[], []]);
	});
});
