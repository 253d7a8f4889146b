/**
 * The live inspector: the trace viewer, live. It serves the viewer page and a Server-Sent Events
 * stream of a session's (or a runtime's) inspection events: each event gets an id, the newest
 * 10 000 are kept, and a client that reconnects with `Last-Event-ID` gets exactly what it missed (or
 * is told which ids were dropped). The page's detail pane asks for one kept event whole
 * (`event?id=<id>`, under the same token) when the user selects it.
 *
 * `createInspectorHandler` is the one implementation: a request handler the host mounts under a base
 * path on its own HTTP server. `serveInspector` runs it on a loopback server of its own.
 *
 * Only the holder of the URL gets anything: every path under the base path starts with a random
 * 256-bit token (anything else: 404, no body), compared in constant time; no CORS header is ever
 * sent, and the page's script runs under a hash-pinned CSP and writes event text with `textContent`
 * only. `serveInspector` also listens on 127.0.0.1 alone and requires a Host header naming
 * 127.0.0.1 or localhost at its port (403 otherwise: a DNS-rebound name does not pass).
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AnyStateMachine } from "xstate";
import { promptOperationMachine } from "../../machines/prompt-operation.machine.js";
import { runtimeMachine } from "../../machines/runtime.machine.js";
import { errorMessage, SettleError } from "../errors.js";
import { loadCrypto, loadHttp } from "../lazy-deps.js";
import type { AgentSessionRuntime } from "../runtime/runtime.js";
import type { AgentSession } from "../session/agent-session.js";
import type { LifecycleInspectionEvent, LifecycleObserver } from "./lifecycle-inspector.js";
import { type LiveEventMessage, livePageCsp, renderLivePage } from "./live-page.js";
import { createLiveEventWindow, type LiveEvent, parseLastEventId } from "./live-window.js";
import { queueHistoryInput } from "./queue-history.js";
import { formatLifecycleEvent, shownInTraceViews } from "./trace.js";
import { takenTransitionKey } from "./trace-viewer.js";

/** Options for {@link serveInspector}. */
export interface InspectorServerOptions {
	/** Port on 127.0.0.1; default 0 (a free port the system picks). */
	port?: number;
	/** Events kept for (re)connecting pages, oldest dropped first; default 10 000 (as traces). */
	maxEvents?: number;
	/**
	 * A page whose unsent stream grows past this many bytes is dropped (told by a last `slow`
	 * message) and resumes from its last id; default 8 MiB. A positive integer: it bounds the memory
	 * one stalled page costs.
	 */
	slowReaderLimitBytes?: number;
}

/** A running live inspector. */
export interface InspectorServer {
	/** The page's address, token included: `http://127.0.0.1:<port>/<token>/`. Anyone with it can watch. */
	readonly url: string;
	/** The unsent bytes past which a slow page is dropped (the option, or 8 MiB). */
	readonly slowReaderLimitBytes: number;
	/**
	 * Ends the event streams (pages are told, and stop reconnecting), stops inspecting the target and
	 * frees the port. Safe to call twice.
	 */
	close(): Promise<void>;
}

/** Options for {@link createInspectorHandler}. */
export interface InspectorHandlerOptions {
	/**
	 * Where the inspector lives on the host's server: it answers the requests whose path is this or
	 * under it, and leaves every other request to the host. Default `"/inspect"`; `"/"` takes every
	 * path. Segments of letters, digits and `. _ ~ -`; give each inspector on one server its own.
	 */
	basePath?: string;
	/**
	 * The secret in the page's path (`<basePath>/<token>/`); default 256 random bits (base64url). At
	 * least 16 characters of `A–Z a–z 0–9 _ -`: whoever knows it can watch the session.
	 */
	token?: string;
	/** Events kept for (re)connecting pages, oldest dropped first; default 10 000 (as traces). */
	maxEvents?: number;
	/** As {@link InspectorServerOptions.slowReaderLimitBytes}: a page further behind is dropped; default 8 MiB. */
	slowReaderLimitBytes?: number;
	/**
	 * The Host header values (`name:port`, any case) the inspector answers; any other gets an empty
	 * 403 (against DNS rebinding when the server listens on loopback). Default: every Host.
	 */
	allowedHosts?: Iterable<string>;
}

/** A live inspector mounted on the host's HTTP server (see {@link createInspectorHandler}). */
export interface InspectorHandler {
	/** The page's path on the host's server, token included: `<basePath>/<token>/`. */
	readonly path: string;
	/** The unsent bytes past which a slow page is dropped (the option, or 8 MiB). */
	readonly slowReaderLimitBytes: number;
	/** The page's address on the server at `origin` (e.g. `"http://localhost:3000"`): `origin` + {@link path}. */
	url(origin: string | URL): string;
	/**
	 * Answers `request` if its path is the base path or under it (page, event stream, or an empty
	 * 403/404) and returns `true`; returns `false`, touching nothing, for any other request — and for
	 * every request once closed.
	 */
	handle(request: IncomingMessage, response: ServerResponse): boolean;
	/**
	 * Ends this inspector's event streams (pages are told, and stop reconnecting) and stops inspecting
	 * the target; the host's server and other inspectors go on. Safe to call twice.
	 */
	close(): Promise<void>;
}

/**
 * The default `slowReaderLimitBytes`: a slow page whose unsent stream grows past this is disconnected
 * (told by a last `slow` message); it resumes from its last id. Bounds the memory one stalled page
 * costs; the session never waits.
 */
const DEFAULT_SLOW_READER_LIMIT_BYTES = 8 * 1024 * 1024;

/** The Host headers an inspector answers (lowercase); a Set, or every Host. */
interface HostCheck {
	has(host: string): boolean;
}
/** Answers every Host (the host server decides who may reach it). */
const ANY_HOST: HostCheck = { has: () => true };

const BASE_PATH = /^(\/[A-Za-z0-9._~-]+)*$/;
const TOKEN = /^[A-Za-z0-9_-]{16,512}$/;

/**
 * Serves a live view of `target`'s lifecycle: open the returned `url` in a browser and watch the
 * diagram follow each state change (retries, compactions, and for a runtime its session
 * replacements) as it happens. Disposing the target ends the stream (the page says so); `close()`
 * stops the server. A page that stops reading is dropped once more than `slowReaderLimitBytes`
 * (default 8 MiB) wait unsent for it. Rejects with `SettleError("INVALID_ARGUMENT")` for a bad port
 * or limit, and `SettleError("IO")` naming the port when it is taken. To serve it from your own
 * HTTP server instead (many sessions, one port), see {@link createInspectorHandler}.
 *
 * @example
 * ```ts
 * import { serveInspector } from "settle/inspect";
 *
 * const inspector = await serveInspector(runtime); // or a session
 * console.error(`Inspector: ${inspector.url}`);
 * await runtime.session.prompt("Fix the failing test");
 * await inspector.close();
 * ```
 */
export async function serveInspector(
	target: AgentSession | AgentSessionRuntime,
	options: InspectorServerOptions = {},
): Promise<InspectorServer> {
	const port = options.port ?? 0;
	if (!Number.isInteger(port) || port < 0 || port > 65_535) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`serveInspector: port must be an integer from 0 to 65535 (0 picks a free port), not ${String(port)}.`,
			{ details: { port } },
		);
	}
	// Filled once the port is known; nothing can connect before.
	const allowedHosts = new Set<string>();
	const handler = mountInspector(
		target,
		{
			basePath: "/",
			...(options.maxEvents !== undefined ? { maxEvents: options.maxEvents } : {}),
			...(options.slowReaderLimitBytes !== undefined ? { slowReaderLimitBytes: options.slowReaderLimitBytes } : {}),
		},
		{ api: "serveInspector", allowedHosts },
	);
	const server = loadHttp().createServer((request, response) => {
		// Only once closed (the server is closing too): nothing is served any more.
		if (!handler.handle(request, response)) reject(response, 404);
	});
	try {
		await new Promise<void>((resolve, rejectListen) => {
			const failed = (error: NodeJS.ErrnoException) => {
				const taken = error.code === "EADDRINUSE";
				rejectListen(
					new SettleError(
						"IO",
						taken
							? `Port ${port} on 127.0.0.1 is in use: choose another port for the inspector (0 picks a free one).`
							: `The inspector could not listen on 127.0.0.1:${port}: ${errorMessage(error)}`,
						{ cause: error, details: { port } },
					),
				);
			};
			server.once("error", failed);
			server.listen(port, "127.0.0.1", () => {
				server.off("error", failed);
				resolve();
			});
		});
	} catch (error) {
		await handler.close();
		throw error;
	}
	const actual = (server.address() as AddressInfo).port;
	allowedHosts.add(`127.0.0.1:${actual}`).add(`localhost:${actual}`);

	let closing: Promise<void> | undefined;
	return {
		url: handler.url(`http://127.0.0.1:${actual}`),
		slowReaderLimitBytes: handler.slowReaderLimitBytes,
		close() {
			closing ??= handler.close().then(
				() =>
					new Promise<void>((resolve) => {
						server.close(() => resolve());
						server.closeAllConnections();
					}),
			);
			return closing;
		},
	};
}

/**
 * Mounts the live inspector of `target` on your own HTTP server: call `handle(request, response)`
 * first in your request listener; it answers the requests under `basePath` (the page at
 * `<basePath>/<token>/` and its event stream) and returns `false` for the rest, which stay yours.
 * Give each session its own base path to watch many sessions on one port. Everything else is as
 * {@link serveInspector}: the token (compared in constant time; anything else under the base path:
 * an empty 404), the CSP, the slow-reader limit, the `end` message when the target is disposed or
 * the handler closed. Throws `SettleError("INVALID_ARGUMENT")` for a bad base path, token or limit.
 *
 * Your server decides who can reach it: on a public interface, only the token keeps others out
 * (serve it over HTTPS), and `allowedHosts` restores the Host check.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { createInspectorHandler } from "settle/inspect";
 *
 * const inspector = createInspectorHandler(session, { basePath: `/inspect/${session.sessionId}` });
 * const server = createServer((request, response) => {
 *   if (inspector.handle(request, response)) return;
 *   response.writeHead(404).end(); // the host's own routes
 * });
 * server.listen(3000, "127.0.0.1");
 * console.error(`Inspector: ${inspector.url("http://127.0.0.1:3000")}`);
 * // when the client leaves:
 * await inspector.close();
 * ```
 */
export function createInspectorHandler(
	target: AgentSession | AgentSessionRuntime,
	options: InspectorHandlerOptions = {},
): InspectorHandler {
	const hosts = options.allowedHosts;
	return mountInspector(target, options, {
		api: "createInspectorHandler",
		allowedHosts: hosts === undefined ? ANY_HOST : new Set([...hosts].map((host) => host.toLowerCase())),
	});
}

const reject = (response: ServerResponse, status: 403 | 404) => {
	response.writeHead(status, { "content-length": "0", "cache-control": "no-store" });
	response.end();
};

const securityHeaders = {
	"cache-control": "no-store",
	"x-content-type-options": "nosniff",
	"referrer-policy": "no-referrer",
	"cross-origin-resource-policy": "same-origin",
	"x-frame-options": "DENY",
};

/** The one implementation; `api` names the caller in errors, `allowedHosts` is read per request. */
function mountInspector(
	target: AgentSession | AgentSessionRuntime,
	options: InspectorHandlerOptions,
	{ api, allowedHosts }: { api: string; allowedHosts: HostCheck },
): InspectorHandler {
	const limit = options.slowReaderLimitBytes ?? DEFAULT_SLOW_READER_LIMIT_BYTES;
	if (!Number.isSafeInteger(limit) || limit <= 0) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`${api}: slowReaderLimitBytes must be a positive integer (bytes a page may fall behind; default ${DEFAULT_SLOW_READER_LIMIT_BYTES}), not ${String(limit)}.`,
			{ details: { slowReaderLimitBytes: limit } },
		);
	}
	const basePath = (options.basePath ?? "/inspect").replace(/\/$/, "");
	if (!BASE_PATH.test(basePath) || basePath.split("/").some((segment) => segment === "." || segment === "..")) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`${api}: basePath must be a path such as "/inspect" or "/sessions/42/inspect" (segments of letters, digits and . _ ~ -), not ${JSON.stringify(options.basePath)}.`,
			{ details: { basePath: String(options.basePath) } },
		);
	}
	const token = options.token ?? loadCrypto().randomBytes(32).toString("base64url");
	if (!TOKEN.test(token)) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`${api}: token must be 16 to 512 characters of A-Z a-z 0-9 _ - (omit it for 256 random bits); the given one is ${token.length} characters.`,
			{ details: { tokenLength: token.length } },
		);
	}
	const isRuntime = "inspectSessions" in target;
	const diagrams: AnyStateMachine[] = isRuntime ? [promptOperationMachine, runtimeMachine] : [promptOperationMachine];
	const title = isRuntime ? "Settle live inspector: runtime" : `Settle live inspector: session ${target.sessionId}`;
	const tokenBytes = Buffer.from(token);
	const pagePath = `${basePath}/${token}/`;
	const window = createLiveEventWindow(options.maxEvents !== undefined ? { maxEvents: options.maxEvents } : {});
	const clients = new Set<ServerResponse>();
	let origin: number | undefined;
	let ended = false;
	let closed = false;
	let page: string | undefined;

	const frame = (live: LiveEvent): string => {
		const { id, event } = live;
		const message: LiveEventMessage = {
			machine: event.machine,
			kind: event.kind,
			line: formatLifecycleEvent(event, origin ?? event.at),
			state: event.kind === "state" ? event.to : null,
			start: event.kind === "state" && event.from === null,
			transition: takenTransitionKey(event, event.machine),
			origin: origin ?? event.at,
			at: event.at,
		};
		// Not the event whole (a slow page is dropped by bytes): the page fetches it when selected (`event?id=`).
		const queue = queueHistoryInput(event);
		if (queue) message.queue = queue;
		return `id: ${id}\nevent: lifecycle\ndata: ${JSON.stringify(message)}\n\n`;
	};
	const send = (response: ServerResponse, text: string) => {
		response.write(text);
		const unsent = response.writableLength;
		if (unsent <= limit) return;
		// Not written to again: it reconnects with its last id and gets the rest from the window. The
		// `slow` message comes after what it has not read yet: it learns why once it catches up.
		clients.delete(response);
		response.end(`event: slow\ndata: ${JSON.stringify({ unsentBytes: unsent, limit })}\n\n`);
	};
	/** Tells a page to stop reconnecting, and why: the target (which one) was disposed, or the inspector closed. */
	const endFrame = (reason: "disposed" | "closed") =>
		`event: end\ndata: ${JSON.stringify({ reason, target: isRuntime ? "runtime" : "session" })}\n\n`;

	const observer: LifecycleObserver = (event: LifecycleInspectionEvent) => {
		// Each queue change once (the emitted `queue_changed`), as in the trace viewer.
		if (!shownInTraceViews(event)) return;
		origin ??= event.at;
		const id = window.push(event);
		if (clients.size === 0) return;
		const text = frame({ id, event });
		for (const response of clients) send(response, text);
	};
	const onEnd = () => {
		ended = true;
		for (const response of clients) response.end(endFrame("disposed"));
		clients.clear();
	};

	/** The base path itself or a path under it (not one that merely starts with the same letters). */
	const mine = (path: string) => basePath === "" || path === basePath || path.startsWith(`${basePath}/`);

	function handle(request: IncomingMessage, response: ServerResponse): boolean {
		const path = (request.url ?? "").split("?")[0] ?? "";
		if (closed || !mine(path)) return false;
		if (!allowedHosts.has((request.headers.host ?? "").toLowerCase())) {
			reject(response, 403);
			return true;
		}
		const inside = path.slice(basePath.length);
		const [, first, rest, ...more] = inside.split("/");
		const get = request.method === "GET" || request.method === "HEAD";
		if (!inside.startsWith("/") || !tokenMatches(first ?? "") || more.length > 0 || !get) {
			reject(response, 404);
			return true;
		}
		if (rest === undefined) {
			response.writeHead(308, { ...securityHeaders, location: pagePath, "content-length": "0" });
			response.end();
			return true;
		}
		if (rest === "") {
			page ??= renderLivePage(diagrams, title);
			response.writeHead(200, {
				...securityHeaders,
				"content-type": "text/html; charset=utf-8",
				"content-security-policy": `${livePageCsp(diagrams.length > 1)}; frame-ancestors 'none'`,
				"content-length": Buffer.byteLength(page),
			});
			response.end(request.method === "HEAD" ? undefined : page);
			return true;
		}
		if (rest === "events") stream(request, response);
		else if (rest === "event") sendEvent(request, response);
		else reject(response, 404);
		return true;
	}
	function tokenMatches(candidate: string): boolean {
		const bytes = Buffer.from(candidate);
		return bytes.length === tokenBytes.length && loadCrypto().timingSafeEqual(bytes, tokenBytes);
	}
	/** `event?id=N`: one kept event whole, for the page's detail pane (the stream's lines cut long payloads); 404 once dropped. */
	function sendEvent(request: IncomingMessage, response: ServerResponse): void {
		const id = /[?&]id=(\d{1,15})(&|$)/.exec(request.url ?? "")?.[1];
		const event = id === undefined ? undefined : window.get(Number(id));
		if (!event) {
			reject(response, 404);
			return;
		}
		const body = JSON.stringify(event);
		response.writeHead(200, {
			...securityHeaders,
			"content-type": "application/json; charset=utf-8",
			"content-length": Buffer.byteLength(body),
		});
		response.end(request.method === "HEAD" ? undefined : body);
	}
	function stream(request: IncomingMessage, response: ServerResponse): void {
		response.writeHead(200, { ...securityHeaders, "content-type": "text/event-stream; charset=utf-8" });
		if (request.method === "HEAD") {
			response.end();
			return;
		}
		const resume = window.since(parseLastEventId(request.headers["last-event-id"]));
		let text = "retry: 1000\n\n";
		// With the last dropped id as its id: a page that reconnects right after it is not told twice.
		if (resume.dropped) text += `id: ${resume.dropped.to}\nevent: dropped\ndata: ${JSON.stringify(resume.dropped)}\n\n`;
		for (const live of resume.events) text += frame(live);
		if (ended) {
			response.end(text + endFrame("disposed"));
			return;
		}
		clients.add(response);
		response.on("close", () => clients.delete(response));
		send(response, text);
	}

	const subscription = isRuntime
		? target.inspectSessions(observer, { onEnd })
		: (target as AgentSession).inspect(observer, { onEnd });

	return {
		path: pagePath,
		slowReaderLimitBytes: limit,
		url(base) {
			let at: URL;
			try {
				at = new URL(pagePath, base);
			} catch (error) {
				throw new SettleError(
					"INVALID_ARGUMENT",
					`${api}: url() needs the server's origin, such as "http://127.0.0.1:3000", not ${JSON.stringify(String(base))}.`,
					{ cause: error, details: { origin: String(base) } },
				);
			}
			return at.href;
		},
		handle,
		close() {
			if (!closed) {
				closed = true;
				subscription.unsubscribe();
				for (const response of clients) response.end(endFrame("closed"));
				clients.clear();
			}
			return Promise.resolve();
		},
	};
}
