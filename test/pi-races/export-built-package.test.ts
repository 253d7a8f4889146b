/**
 * pi#5240, pi#5534: pi built into its binary (`npm run build:binary`, run from `dist/`) failed every
 * `--export` with `ENOENT … dist/export-html/template.css`: the page's stylesheet and script were
 * files read next to the module at run time, and the build did not ship them. What that user should
 * see: the built program exports the same page as the sources. Settle's page stylesheet and script
 * are part of its modules (src/export/page.ts), so the bundle `npm run build` makes carries them; it
 * holds: the bundled `settle --export`, run from another folder, writes byte for byte the page the
 * sources write, and it renders in real headless Chromium. gsd-2#370 is the same failure by another
 * road: gsd-pi sets `PI_PACKAGE_DIR` to a folder (for its branding) that has no `export-html/`, and
 * `--export` failed with ENOENT for template.html; here it points at an empty folder.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { onExportedPage } from "../inspect/chromium.js";
import { builtPackage } from "../package/helpers.js";

const cli = useCliProject("settle-export-built-");

describe("pi#5240 / pi#5534 / gsd-2#370: --export from the built program fails: its page template is missing", () => {
	// A build, two CLI runs and a browser: well over vitest's default on a loaded 2-core box.
	it("pi#5240: the bundled CLI's `--export` writes the page the sources write, and it renders", {
		timeout: 120_000,
	}, async () => {
		const sessions = join(cli.dir, "sessions");
		expect(cli.settle(["--faux", "--session-dir", sessions, "-p", "export me from the bundle"]).code).toBe(0);
		const [name] = readdirSync(sessions).filter((file) => file.endsWith(".jsonl"));
		const file = join(sessions, name!);

		const fromSources = cli.settle(["--export", file, join(cli.dir, "sources.html")]);
		expect(fromSources).toMatchObject({ code: 0, stderr: "" });

		const emptyFolder = join(cli.dir, "pkg-dir");
		mkdirSync(emptyFolder);
		const pkg = builtPackage("test/pi-races");
		try {
			const bundled = spawnSync(process.execPath, [pkg.bin, "--export", file, join(cli.dir, "bundle.html")], {
				cwd: cli.project,
				input: "",
				encoding: "utf8",
				env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir, PI_PACKAGE_DIR: emptyFolder },
			});
			expect({ code: bundled.status, stderr: bundled.stderr }).toEqual({ code: 0, stderr: "" });
			expect(bundled.stdout).toBe(fromSources.stdout.replace("sources.html", "bundle.html"));
		} finally {
			pkg.remove();
		}
		const page = readFileSync(join(cli.dir, "bundle.html"), "utf8");
		expect(page).toBe(readFileSync(join(cli.dir, "sources.html"), "utf8"));
		// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
		const shown = await onExportedPage(join(cli.dir, "bundle.html"), (tab) => tab.locator("#entries").innerText());
		expect(shown).toContain("export me from the bundle");
	});
});
