/**
 * The live page, in real headless Chromium, when the server drops it for reading too slowly: the
 * page (the real one, from a real inspector on a real session) says why and what to do, keeps saying
 * it while the browser reconnects, resumes with `Last-Event-ID` from its last event, shows the
 * events sent meanwhile (each once) and says "live" again. The `slow` message is delivered on cue by
 * an HTTP proxy in front of the inspector (making Chromium fall 8 MiB behind is
 * test/inspect/live-slow-reader.test.ts's job, for the server); the proxy also holds the browser's
 * reconnection until the test lets it through, so every step is waited on, never slept for.
 */
import {
	type ClientRequest,
	createServer,
	request as httpRequest,
	type IncomingHttpHeaders,
	type ServerResponse,
} from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { LiveSlowMessage } from "../../src/inspect/live-page.js";
import { type InspectorServer, serveInspector } from "../../src/inspect/live-server.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { openChromium } from "./chromium.js";
import { loadLivePage } from "./live-browser.js";

const LIMIT = 8 * 1024 * 1024;

let h: Harness | undefined;
let inspector: InspectorServer | undefined;
let closeProxy: (() => Promise<void>) | undefined;
let closeBrowser: (() => Promise<void>) | undefined;
afterEach(async () => {
	await closeBrowser?.();
	await closeProxy?.();
	await inspector?.close();
	h?.cleanup();
	closeBrowser = undefined;
	closeProxy = undefined;
	inspector = undefined;
	h = undefined;
});

/**
 * An HTTP proxy in front of the inspector at `target` (its port): passes the page through, and the
 * event stream whole SSE messages at a time, so that `slow()` can end the current stream the way the
 * server does — a last `slow` message, then the end of the response. After that the next stream
 * request waits until `release()`. Records each stream request's `Last-Event-ID`.
 */
async function slowProxy(target: number) {
	const lastEventIds: (string | undefined)[] = [];
	const arrivals: (() => void)[] = [];
	const held: (() => void)[] = [];
	let holding = false;
	let current: { response: ServerResponse; upstream: ClientRequest } | undefined;
	const upstreams = new Set<ClientRequest>();

	const forward = (path: string, headers: IncomingHttpHeaders, response: ServerResponse, events: boolean) => {
		const upstream = httpRequest(
			{ host: "127.0.0.1", port: target, path, headers: { ...headers, host: `127.0.0.1:${target}` }, agent: false },
			(reply) => {
				const { connection: _c, "transfer-encoding": _t, ...replyHeaders } = reply.headers;
				response.writeHead(reply.statusCode ?? 502, replyHeaders);
				if (!events) return void reply.pipe(response);
				current = { response, upstream };
				let buffer = "";
				reply.setEncoding("utf8");
				reply.on("data", (chunk: string) => {
					buffer += chunk;
					const cut = buffer.lastIndexOf("\n\n");
					if (cut === -1 || response.writableEnded) return;
					response.write(buffer.slice(0, cut + 2));
					buffer = buffer.slice(cut + 2);
				});
				reply.on("end", () => response.end());
			},
		);
		upstreams.add(upstream);
		upstream.on("close", () => upstreams.delete(upstream));
		upstream.on("error", () => response.destroy());
		upstream.end();
	};
	const server = createServer((request, response) => {
		const path = request.url ?? "/";
		const events = path.endsWith("/events");
		if (!events) return forward(path, request.headers, response, false);
		lastEventIds.push(request.headers["last-event-id"] as string | undefined);
		for (const wake of arrivals.splice(0)) wake();
		const go = () => forward(path, request.headers, response, true);
		if (holding) held.push(go);
		else go();
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const port = (server.address() as { port: number }).port;
	return {
		port,
		lastEventIds,
		/** Resolves once `count` stream requests have arrived. */
		async requests(count: number): Promise<void> {
			while (lastEventIds.length < count) await new Promise<void>((wake) => arrivals.push(wake));
		},
		/** Ends the current stream with the server's `slow` message; the reconnection waits for `release()`. */
		slow(message: LiveSlowMessage): void {
			if (!current) throw new Error("no event stream to drop");
			holding = true;
			const { response, upstream } = current;
			current = undefined;
			response.end(`event: slow\ndata: ${JSON.stringify(message)}\n\n`);
			upstream.destroy();
		},
		release(): void {
			holding = false;
			for (const go of held.splice(0)) go();
		},
		close: () =>
			new Promise<void>((resolve) => {
				for (const upstream of upstreams) upstream.destroy();
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

/** What the in-page functions use (the DOM is not in this project's TypeScript lib). */
interface PageGlobals {
	document: { querySelectorAll(selector: string): Iterable<{ getAttribute(name: string): string | null }> };
}

async function openPage(url: string) {
	const chromium = await openChromium();
	closeBrowser = chromium.close;
	const { page, problems } = await loadLivePage(chromium.browser, url, { viewport: { width: 1200, height: 800 } });
	const status = () => page.locator("#status").textContent();
	const ids = () => page.$$eval("li[data-id]", (items) => items.map((li) => Number(li.getAttribute("data-id"))));
	/** Waits (in the page: a function, which its CSP allows, not a string) until the newest event's id is `id`. */
	const untilLastId = (id: number) =>
		page.waitForFunction((wanted) => {
			const { document } = globalThis as unknown as PageGlobals;
			return Number([...document.querySelectorAll("li[data-id]")].at(-1)?.getAttribute("data-id")) === wanted;
		}, id);
	return { page, problems, status, ids, untilLastId };
}

describe("the live page dropped for reading too slowly", () => {
	it("says why and what to do, resumes from its last event with what was sent meanwhile, and is live again", async () => {
		h = await createHarness();
		h.setResponses([
			fauxAssistantMessage("one"),
			fauxAssistantMessage("two"),
			fauxAssistantMessage("three"),
			fauxAssistantMessage("four"),
		]);
		inspector = await serveInspector(h.session);
		// Subscribed right after the inspector, on an idle session: it sees what the inspector numbers
		// 1, 2, …, so its count is the newest id the inspector has given out.
		let given = 0;
		h.session.inspect(() => given++);
		const proxy = await slowProxy(Number(new URL(inspector.url).port));
		closeProxy = proxy.close;
		const view = await openPage(inspector.url.replace(/:\d+\//, `:${proxy.port}/`));
		await view.page.locator("#status", { hasText: /^live$/ }).waitFor();
		await h.session.prompt("one");
		const before = given;
		await view.untilLastId(before);

		proxy.slow({ unsentBytes: LIMIT + 4096, limit: LIMIT });
		await view.page.locator("#status", { hasText: "too slowly" }).waitFor({ timeout: 10_000 });
		// The browser has seen the stream end (its error event) and asks again: the text is still why, not "connection lost".
		await proxy.requests(2);
		expect(await view.status()).toBe(
			`dropped for reading too slowly: more than 8 MiB of events waited unsent; resuming after event ${before}… If this keeps happening, close other tabs or lower the machine's load`,
		);
		expect(await view.page.locator("li.slow").textContent()).toBe(
			`… dropped here for reading too slowly (more than 8 MiB unsent); resuming after event ${before}`,
		);
		expect(proxy.lastEventIds[1]).toBe(String(before));

		// Sent while the page is away; it gets them when it resumes, then the live ones.
		await h.session.prompt("two");
		const meanwhile = given;
		expect(meanwhile).toBeGreaterThan(before);
		expect(Math.max(...(await view.ids()))).toBe(before);
		proxy.release();
		await view.untilLastId(meanwhile);
		await view.page.locator("#status", { hasText: /^live$/ }).waitFor();
		expect(await view.status()).toBe("live");
		await h.session.prompt("three");
		const after = given;
		await view.untilLastId(after);
		expect(await view.ids()).toEqual(Array.from({ length: after }, (_, i) => i + 1));

		// Again, from a server with a lower limit: the page counts it (so a user sees that it keeps
		// happening) and says the limit it was sent.
		proxy.slow({ unsentBytes: 70_000, limit: 64 * 1024 });
		await proxy.requests(3);
		expect(await view.status()).toBe(
			`dropped for reading too slowly (2 times now): more than 64 KiB of events waited unsent; resuming after event ${after}… If this keeps happening, close other tabs or lower the machine's load`,
		);
		expect(proxy.lastEventIds[2]).toBe(String(after));
		await h.session.prompt("four");
		proxy.release();
		const last = given;
		await view.untilLastId(last);
		await view.page.locator("#status", { hasText: /^live$/ }).waitFor();
		expect(await view.ids()).toEqual(Array.from({ length: last }, (_, i) => i + 1));
		expect(await view.page.locator("li.slow").count()).toBe(2);
		expect(await view.page.locator("li.gap").count()).toBe(0);

		h.session.dispose();
		await view.page.locator("#status", { hasText: "ended" }).waitFor();
		expect(await view.status()).toBe("ended: the session was disposed");
		expect(view.problems).toEqual([]);
	});
});
