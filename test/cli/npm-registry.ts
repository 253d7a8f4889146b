/**
 * A local npm registry for the package-command tests: a real HTTP server speaking the registry's
 * read protocol (a package document with its versions, `dist-tags.latest` and tarball URLs; the
 * tarballs), so the real `npm install` / `npm view` of a `settle` child resolve `name@latest` without
 * the network. A version is published by handing over the tarball `npm pack` made. Run the `settle`
 * children with `runSettleAsync`: the server answers from the test's own event loop.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface NpmRegistry {
	/** `npm_config_registry` for the children's environment. */
	url: string;
	/** Makes `version` of `name` available and the `latest` one. */
	publish(name: string, version: string, tarball: string): void;
	/** The paths requested so far, in order (package documents and tarballs). */
	requests: string[];
	close(): Promise<void>;
}

export async function startNpmRegistry(): Promise<NpmRegistry> {
	const packages = new Map<string, { latest: string; versions: Map<string, Buffer> }>();
	const requests: string[] = [];
	const server = createServer((req, res) => {
		const path = decodeURIComponent(new URL(req.url ?? "/", "http://registry").pathname);
		requests.push(path);
		const tarball = /^\/(.+)\/-\/[^/]+-(\d+\.\d+\.\d+)\.tgz$/.exec(path);
		if (tarball) {
			const data = packages.get(tarball[1]!)?.versions.get(tarball[2]!);
			if (!data) return res.writeHead(404).end();
			return res.writeHead(200, { "content-type": "application/octet-stream" }).end(data);
		}
		const name = path.slice(1);
		const entry = packages.get(name);
		if (!entry) return res.writeHead(404, { "content-type": "application/json" }).end('{"error":"Not found"}');
		const versions = Object.fromEntries(
			[...entry.versions].map(([version, data]) => [
				version,
				{
					name,
					version,
					dist: {
						tarball: `${url}${name}/-/${name.split("/").pop()}-${version}.tgz`,
						shasum: createHash("sha1").update(data).digest("hex"),
						integrity: `sha512-${createHash("sha512").update(data).digest("base64")}`,
					},
				},
			]),
		);
		res
			.writeHead(200, { "content-type": "application/json" })
			.end(JSON.stringify({ name, "dist-tags": { latest: entry.latest }, versions }));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
	return {
		url,
		requests,
		publish(name, version, tarball) {
			const entry = packages.get(name) ?? { latest: version, versions: new Map<string, Buffer>() };
			entry.versions.set(version, readFileSync(tarball));
			entry.latest = version;
			packages.set(name, entry);
		},
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
