/**
 * What the provider clients drop when a request gets no response: they word every refused,
 * unresolved or untrusted connection "Connection error." (TradingAgents#664, opencode#10961: the
 * user could not tell which address failed, or why), and a gateway's HTML error page is shown as
 * its markup (codex#9110).
 */

/** Certificates a private authority signed: trusting that authority is the fix. */
const UNKNOWN_AUTHORITY = new Set([
	"SELF_SIGNED_CERT_IN_CHAIN",
	"DEPTH_ZERO_SELF_SIGNED_CERT",
	"UNABLE_TO_GET_ISSUER_CERT",
	"UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
	"UNABLE_TO_VERIFY_LEAF_SIGNATURE",
]);

/** Certificates refused for what they say (expired, another host): no setting on this side fixes them. */
const BAD_CERTIFICATE = /^(?:CERT_|ERR_TLS_CERT_|ERR_SSL_)/;

/** `url` without the user, password and query it may carry (a key in a query string stays private). Internal. */
export function shownUrl(url: string): string {
	try {
		const parsed = new URL(url);
		return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/$/, "")}`;
	} catch {
		return url;
	}
}

/** The first `code` (and its message) in `error`'s cause chain, an AggregateError's first error included. */
function causeOf(error: unknown): { code: string; message: string; hostname?: string } | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current && typeof current === "object"; depth++) {
		const cause = current as { code?: unknown; message?: unknown; hostname?: unknown; errors?: unknown[] };
		const first = Array.isArray(cause.errors) ? (cause.errors[0] as typeof cause | undefined) : undefined;
		const code = typeof cause.code === "string" ? cause.code : typeof first?.code === "string" ? first.code : undefined;
		if (code) {
			return {
				code,
				message: typeof cause.message === "string" && cause.message ? cause.message : String(first?.message ?? ""),
				hostname: typeof cause.hostname === "string" ? cause.hostname : undefined,
			};
		}
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

/**
 * The error text for a request to `baseUrl` (of `provider`) whose `fetch` threw `error`, naming the
 * address and what to do; undefined when the cause is unknown. `midAnswer`: the connection dropped
 * after the response's headers, while its body was read. A refused, unresolved or dropped
 * connection starts "Connection error:" and stays retryable; an untrusted certificate does not: it
 * fails the same way on every attempt (claude-code#8054: ten retries of "Connection error.").
 *
 * @example
 * ```ts
 * const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:11434"), { code: "ECONNREFUSED" });
 * connectionFailureText(new TypeError("fetch failed", { cause }), "ollama", "http://127.0.0.1:11434/v1");
 * // "Connection error: nothing accepted the connection at http://127.0.0.1:11434/v1 (ECONNREFUSED). Check …"
 * ```
 */
export function connectionFailureText(
	error: unknown,
	provider: string,
	baseUrl: string,
	midAnswer = false,
): string | undefined {
	const cause = causeOf(error);
	if (!cause) return undefined;
	const base = shownUrl(baseUrl);
	let host = base;
	try {
		host = new URL(baseUrl).hostname;
	} catch {
		// keep the whole address
	}
	const { code } = cause;
	const setting = `the baseUrl of ${provider}`;
	if (UNKNOWN_AUTHORITY.has(code)) {
		return (
			`The certificate of ${host} is not signed by an authority this process trusts (${code}: ${cause.message}): ` +
			`the request to ${base} was not sent. If your network or a proxy signs connections with its own ` +
			"authority (a company's TLS inspection), set NODE_EXTRA_CA_CERTS to that authority's certificate " +
			"(a PEM file) and start the process again."
		);
	}
	if (BAD_CERTIFICATE.test(code)) {
		return (
			`The certificate of ${host} was refused (${code}: ${cause.message}): the request to ${base} was not sent. ` +
			`Check the server's certificate, and that ${setting} names the host it was issued for.`
		);
	}
	if (code === "ECONNREFUSED") {
		return `Connection error: nothing accepted the connection at ${base} (ECONNREFUSED). Check that the server runs and that ${setting} names its address and port.`;
	}
	if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
		return `Connection error: the host ${cause.hostname ?? host} could not be found (${code}): the request to ${base} was not sent. Check ${setting} for a typo, and the network's DNS.`;
	}
	if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") {
		const when = midAnswer ? "in the middle of its answer" : "before answering";
		return `Connection error: ${base} closed the connection ${when} (${code}: ${cause.message}). Check that the server is still running (its log says why it hung up), and any proxy in between.`;
	}
	return `Connection error: the request to ${base} failed (${code}${cause.message ? `: ${cause.message}` : ""}). Check that the server runs, that ${setting} names it, and any proxy in between.`;
}

/** `<status> <html…>`: the clients' text for a refusal whose body is an HTML page. */
const HTML_REFUSAL = /^([1-5]\d\d) \s*(?:<!doctype html|<html|<head|<body)/i;

/**
 * A refusal whose body is an HTML page (a gateway's or proxy's, not the API's JSON), shortened to
 * the status and the page's title or first heading, saying where it came from; undefined for any
 * other text. The status stays first, so a 502 is still retried.
 *
 * @example
 * ```ts
 * htmlRefusalText("502 <html><head><title>502 Bad Gateway</title></head>…</html>", "https://api.example.com/v1");
 * // "502 Bad Gateway: an HTML error page from api.example.com (a gateway or proxy in front of the API), not the API's answer"
 * ```
 */
export function htmlRefusalText(text: string, baseUrl: string): string | undefined {
	const refusal = HTML_REFUSAL.exec(text);
	if (!refusal) return undefined;
	const status = refusal[1]!;
	const words = pageTitle(text);
	const host = hostOf(baseUrl);
	const title = words.startsWith(status) ? words.slice(status.length).replace(/^[\s:]+/, "") : words;
	return `${status}${title ? ` ${title}` : ""}: an HTML error page from ${host} (a gateway or proxy in front of the API), not the API's answer`;
}

/** An HTML page's title, else its first heading, as plain words (at most 200 characters). */
function pageTitle(html: string): string {
	const heading =
		/<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(html)?.[1] ?? "";
	return heading
		.replace(/<[^>]*>/g, " ")
		.replace(/&nbsp;/g, " ")
		.replace(/&amp;/g, "&")
		.replace(/&lt;/g, "<")
		.replace(/&gt;/g, ">")
		.replace(/\s+/g, " ")
		.trim()
		.slice(0, 200);
}

/** `url`'s host and port, or "the server" for an address that is no URL. */
function hostOf(url: string): string {
	try {
		return new URL(url).host;
	} catch {
		return "the server";
	}
}

/**
 * The error for a request answered `200` with an HTML page (`page`) instead of the API's answer: a
 * `baseUrl` naming a web UI, a login page or a gateway's block page. The clients read such a body as
 * an empty stream, an answer with no text (qwen-code#6465). Not retryable: the next request gets the
 * same page.
 *
 * @example
 * ```ts
 * servedPageText("<!doctype html><title>Open WebUI</title>", "local", "http://127.0.0.1:8080");
 * // 'The server at http://127.0.0.1:8080 answered with an HTML page ("Open WebUI"), not the API. …'
 * ```
 */
export function servedPageText(page: string, provider: string, baseUrl: string): string {
	const title = pageTitle(page);
	return (
		`The server at ${shownUrl(baseUrl)} answered with an HTML page${title ? ` ("${title}")` : ""}, not the API. ` +
		`Check the baseUrl of ${provider}: it names a web page (a web UI, a sign-in or a gateway's block page), not the API's address.`
	);
}

/**
 * The error an answer under `200` holds when it is one JSON object with an `error` (a string, or an
 * object's `message`) and no answer: LM Studio's `{"error":"Unexpected endpoint or method. (POST
 * /chat/completions)"}` for a path it does not serve. Undefined for anything else (an answer, whose
 * `"error": null` or `false` is no error). Internal.
 */
export function servedErrorMessage(document: string): string | undefined {
	let value: unknown;
	try {
		value = JSON.parse(document);
	} catch {
		return undefined;
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
	const { error, choices, output, content } = value as Record<string, unknown>;
	// `"error": false` (or null, "", 0) says there is none: only a truthy one is an error answer.
	if (!error || choices !== undefined || output !== undefined || content !== undefined) return undefined;
	if (typeof error === "string") return error;
	const message = (error as { message?: unknown }).message;
	return typeof message === "string" ? message : JSON.stringify(error);
}

/**
 * The error for a request answered `200` with an error object (`message`) instead of the API's
 * answer, which the clients read as an empty stream. Not retryable: the next request gets the same.
 *
 * @example
 * ```ts
 * servedErrorText("Unexpected endpoint or method. (POST /chat/completions)", "local", "http://127.0.0.1:1234");
 * // 'The server at http://127.0.0.1:1234 answered 200 with an error, not the API's answer: "Unexpected endpoint …'
 * ```
 */
export function servedErrorText(message: string, provider: string, baseUrl: string): string {
	return `The server at ${shownUrl(baseUrl)} answered 200 with an error, not the API's answer: "${message}". Check the baseUrl of ${provider}.`;
}
