/**
 * Provider requests through the proxy the environment names. Node 20's `fetch`, which every
 * provider client uses, ignores `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY`; pi's command installs
 * undici's `EnvHttpProxyAgent` for them, and `settle` does the same when one is set.
 */

/** The proxy variables `useEnvProxy` reads, either case, as curl and git do (lower case first). */
export interface ProxyEnv {
	readonly [name: string]: string | undefined;
}

/**
 * Sends this process's `fetch` requests (every provider's) through the proxy in `HTTPS_PROXY` /
 * `HTTP_PROXY` (or their lower-case names), except for the hosts `NO_PROXY` lists, as pi's command
 * does. With a proxy the requests have no header or body timeout, as in pi (a long-thinking model
 * may answer late; the session's own stream idle timeout still applies). Without any proxy
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
	const httpProxy = env.http_proxy || env.HTTP_PROXY || undefined;
	const httpsProxy = env.https_proxy || env.HTTPS_PROXY || undefined;
	if (!httpProxy && !httpsProxy) return false;
	const { EnvHttpProxyAgent, setGlobalDispatcher } = await import("undici");
	setGlobalDispatcher(
		new EnvHttpProxyAgent({
			httpProxy,
			// undici's own fallback: HTTPS goes through the HTTP proxy when only that one is named.
			httpsProxy: httpsProxy ?? httpProxy,
			noProxy: env.no_proxy ?? env.NO_PROXY ?? "",
			bodyTimeout: 0,
			headersTimeout: 0,
		}),
	);
	return true;
}
