/**
 * Provider requests through the proxy the environment names. Node 20's `fetch`, which every
 * provider client uses, ignores `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY`; pi's command installs
 * undici's `EnvHttpProxyAgent` for them, and `settle` does the same when one is set.
 */

/** The proxy variables `useEnvProxy` reads, either case, as curl and git do (lower case first). */
export interface ProxyEnv {
	readonly [name: string]: string | undefined;
}

/** The proxy one protocol's requests go through, and the variable that named it. */
interface NamedProxy {
	readonly url: string;
	readonly variable: string;
}

// What the last provider request the proxy turned away was told, and how many were: the session
// words its "Connection error." with it (the provider clients keep only that text, not the cause).
let proxyFailures = 0;
let lastProxyFailure = "";
let directFetch: typeof fetch | undefined;

/**
 * A mark to pass to {@link proxyFailureSince} when a provider request starts.
 *
 * @example
 * ```ts
 * const mark = proxyFailureMark();
 * ```
 */
export function proxyFailureMark(): number {
	return proxyFailures;
}

/**
 * Why the proxy turned a request away since `mark` (what to do included), or undefined when it
 * turned none away: a proxy that could not be reached, or that answered the tunnel with a status
 * (407: it wants credentials).
 *
 * @example
 * ```ts
 * const mark = proxyFailureMark();
 * // … the request fails with "Connection error."
 * proxyFailureSince(mark); // "The proxy http://proxy.corp:3128 (HTTPS_PROXY) answered 407 …"
 * ```
 */
export function proxyFailureSince(mark: number): string | undefined {
	return proxyFailures > mark ? lastProxyFailure : undefined;
}

/**
 * Whether {@link useEnvProxy} routed this process's requests through a proxy.
 *
 * @example
 * ```ts
 * if (proxyInUse()) console.error("provider requests go through the proxy");
 * ```
 */
export function proxyInUse(): boolean {
	return directFetch !== undefined;
}

/** The proxy's address without the user and password it may carry. */
function shownProxy(url: string): string {
	try {
		const parsed = new URL(url);
		return `${parsed.protocol}//${parsed.host}`;
	} catch {
		return "the proxy";
	}
}

/** The explanation for a `fetch` to `target` that failed at `proxy` (undefined: it failed elsewhere). */
function proxyRefusal(error: unknown, target: URL, proxy: NamedProxy): string | undefined {
	const cause = (
		error as {
			cause?: {
				code?: string;
				message?: string;
				address?: string;
				port?: number;
				hostname?: string;
				cause?: { message?: string };
			};
		}
	).cause;
	if (!cause) return undefined;
	const shown = shownProxy(proxy.url);
	const where = `the request to ${target.host} was not sent`;
	const bypass = `or list ${target.hostname} in NO_PROXY`;
	const status = /Proxy response \((\d+)\)/.exec(`${cause.message ?? ""} ${cause.cause?.message ?? ""}`)?.[1];
	if (status === "407") {
		return (
			`The proxy ${shown} (${proxy.variable}) answered 407 Proxy Authentication Required: ${where}. ` +
			`Put the proxy's user and password in ${proxy.variable} (http://user:password@host:port), ${bypass}.`
		);
	}
	if (status) {
		return `The proxy ${shown} (${proxy.variable}) answered ${status} instead of opening a tunnel: ${where}. Check the proxy, ${bypass}.`;
	}
	let proxyUrl: URL;
	try {
		proxyUrl = new URL(proxy.url);
	} catch {
		return undefined;
	}
	const port = Number(proxyUrl.port || (proxyUrl.protocol === "https:" ? 443 : 80));
	const host = proxyUrl.hostname.replace(/^\[|\]$/g, "");
	const atProxy = (cause.address === host && cause.port === port) || cause.hostname === host;
	if (!atProxy || !cause.code) return undefined;
	return (
		`Connection error: the proxy ${shown} (${proxy.variable}) could not be reached (${cause.code}): ${where}. ` +
		`Check that the proxy runs and ${proxy.variable} names it, ${bypass}.`
	);
}

/** The URL a `fetch` call asks for. */
function targetOf(input: Parameters<typeof fetch>[0]): URL | undefined {
	try {
		return new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
	} catch {
		return undefined;
	}
}

/**
 * Sends this process's `fetch` requests (every provider's) through the proxy in `HTTPS_PROXY` /
 * `HTTP_PROXY` (or their lower-case names), except for the hosts `NO_PROXY` lists, as pi's command
 * does. With a proxy the requests have no header or body timeout, as in pi (a long-thinking model
 * may answer late; the session's own stream idle timeout still applies). A request the proxy turns
 * away (unreachable, or a 407 asking for credentials) is recorded (`globalThis.fetch` is wrapped to
 * see the cause the provider clients drop), so the session's error names the
 * proxy and what to do instead of a bare "Connection error." ({@link proxyFailureSince}). Without any proxy
 * variable it does nothing (undici is not even loaded) and resolves to `false`. `settle` calls it
 * at start; an SDK host calls it once before its first prompt.
 *
 * @example
 * ```ts
 * // HTTPS_PROXY=http://proxy.corp:3128 NO_PROXY=localhost node host.js
 * const proxied = await useEnvProxy(); // true
 * ```
 */
export async function useEnvProxy(env: ProxyEnv = process.env): Promise<boolean> {
	const http = named(env, "http_proxy", "HTTP_PROXY");
	const https = named(env, "https_proxy", "HTTPS_PROXY") ?? http;
	const httpProxy = http?.url;
	const httpsProxy = https?.url;
	if (!httpProxy && !httpsProxy) return false;
	const { EnvHttpProxyAgent, setGlobalDispatcher } = await import("undici");
	setGlobalDispatcher(
		new EnvHttpProxyAgent({
			httpProxy,
			// undici's own fallback (in `https` above): HTTPS goes through the HTTP proxy when only that one is named.
			httpsProxy,
			noProxy: env.no_proxy ?? env.NO_PROXY ?? "",
			bodyTimeout: 0,
			headersTimeout: 0,
		}),
	);
	directFetch ??= globalThis.fetch;
	const send = directFetch;
	globalThis.fetch = async (input, init) => {
		try {
			return await send(input, init);
		} catch (error) {
			const target = targetOf(input);
			const proxy = target?.protocol === "https:" ? https : http;
			const refusal = target && proxy ? proxyRefusal(error, target, proxy) : undefined;
			if (refusal) {
				lastProxyFailure = refusal;
				proxyFailures++;
			}
			throw error;
		}
	};
	return true;
}

/** The proxy `lower` or `upper` names (lower case first, as curl reads them). */
function named(env: ProxyEnv, lower: string, upper: string): NamedProxy | undefined {
	if (env[lower]) return { url: env[lower], variable: lower };
	if (env[upper]) return { url: env[upper], variable: upper };
	return undefined;
}
