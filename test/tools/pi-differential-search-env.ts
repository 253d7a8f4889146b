/**
 * The ripgrep and fd binaries pi 0.73.1's grep/find tools shell out to, set up for the search
 * differential: Debian's `ripgrep` and `fd-find` packages (installed by .ci/run), found on PATH the
 * way pi's tools-manager finds them (`rg`; `fd` or `fdfind`).
 *
 * pi never downloads anything here: `PI_OFFLINE=1` turns its download path off, and
 * `PI_CODING_AGENT_DIR` points at a fresh folder, so no `~/.pi/agent/bin/rg` of the user's is used.
 * Both must be set before pi's modules load (tools-manager reads the bin folder at import).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const INSTALL_HINT =
	"install Debian's ripgrep and fd-find packages (apt-get install -y ripgrep fd-find, as .ci/run does): " +
	"pi's grep and find tools shell out to them, and the search differential compares against them";

/** `name --version`'s first line, or undefined when `name` is not on PATH. */
function versionOf(name: string): string | undefined {
	const result = spawnSync(name, ["--version"], { encoding: "utf-8" });
	if (result.error || result.status !== 0) return undefined;
	return result.stdout.split("\n")[0]?.trim();
}

/** Major/minor/patch of a `fd 8.6.0` / `ripgrep 13.0.0` line. */
function semver(line: string): [number, number, number] {
	const match = /(\d+)\.(\d+)\.(\d+)/.exec(line);
	if (!match) throw new Error(`Cannot read a version from ${JSON.stringify(line)}`);
	return [Number(match[1]), Number(match[2]), Number(match[3])];
}

export interface SearchBinaries {
	/** `ripgrep 13.0.0` */
	rgVersion: string;
	/** The fd command on PATH (`fd`, or Debian's `fdfind`) and its version line. */
	fd: string;
	fdVersion: string;
	/** fd before 8.7 rejects `--no-require-git`, which pi 0.73.1's find always passes. */
	fdLacksNoRequireGit: boolean;
}

/**
 * The installed binaries; throws (never skips) with what to install when one is missing.
 *
 * @example
 * ```ts
 * const { fd, fdLacksNoRequireGit } = requireSearchBinaries();
 * ```
 */
export function requireSearchBinaries(): SearchBinaries {
	const rgVersion = versionOf("rg");
	if (!rgVersion) throw new Error(`ripgrep (rg) is not on PATH: ${INSTALL_HINT}.`);
	const fd = ["fd", "fdfind"].find((name) => versionOf(name) !== undefined);
	const fdVersion = fd ? versionOf(fd) : undefined;
	if (!fd || !fdVersion) throw new Error(`fd (fd or fdfind) is not on PATH: ${INSTALL_HINT}.`);
	const [major, minor] = semver(fdVersion);
	return { rgVersion, fd, fdVersion, fdLacksNoRequireGit: major < 8 || (major === 8 && minor < 7) };
}

export interface PiSearchEnvironment {
	binaries: SearchBinaries;
	/** pi's agent folder (its `bin/` is where tools-manager looks first). */
	agentDir: string;
	/**
	 * Puts the fd shim in place (when the installed fd needs one) or takes it away, so pi runs the
	 * system fd as it is. pi's tools-manager looks for `bin/fd` on every call.
	 */
	setFdShim(on: boolean): void;
	/** Whether rg reads CRLF as a line break (`--crlf`), from the next call on. */
	useRgCrlf(crlf: boolean): void;
	/** Restores the environment variables and removes the folder. */
	dispose(): void;
}

/**
 * Sets the process up so pi's grep/find run the system binaries offline and deterministically:
 *
 * - `RIPGREP_CONFIG_PATH` → a config with `--sort=path` and `--crlf`. Reason: rg searches files on
 *   several threads, so which matches fill the limit varies from run to run; `--sort=path` makes rg
 *   walk in file-name order, which is Settle's order. `--crlf`: Settle reads CRLF as one line break
 *   (so `foo$` matches `foo\r\n`, deliberately); rg does only with `--crlf`.
 * - with fd < 8.7 (Debian bookworm ships 8.6), `bin/fd` is a shim that drops `--no-require-git`
 *   (pi 0.73.1 always passes it; fd 8.6 rejects it — pinned in pi-differential-search-pins.test.ts).
 *   Inside a git repository the flag changes nothing, and every tree the differential builds is one.
 *
 * @example
 * ```ts
 * const env = setUpPiSearchEnvironment();
 * const pi = await import("@mariozechner/pi-coding-agent");
 * // … env.dispose() after the tests
 * ```
 */
export function setUpPiSearchEnvironment(options: { fdShim: boolean } = { fdShim: true }): PiSearchEnvironment {
	const binaries = requireSearchBinaries();
	const agentDir = mkdtempSync(join(tmpdir(), "settle-pi-agent-"));
	mkdirSync(join(agentDir, "bin"));
	const rgConfig = join(agentDir, "ripgreprc");
	const useRgCrlf = (crlf: boolean) => writeFileSync(rgConfig, crlf ? "--sort=path\n--crlf\n" : "--sort=path\n");
	useRgCrlf(true);
	const shimPath = join(agentDir, "bin", "fd");
	const setFdShim = (on: boolean) => {
		if (!on || !binaries.fdLacksNoRequireGit) {
			rmSync(shimPath, { force: true });
			return;
		}
		writeFileSync(
			shimPath,
			`#!/bin/sh\n# fd < 8.7 has no --no-require-git: drop it (a no-op inside a git repository).\nfor a do shift; [ "$a" = --no-require-git ] || set -- "$@" "$a"; done\nexec ${binaries.fd} "$@"\n`,
		);
		chmodSync(shimPath, 0o755);
	};
	setFdShim(options.fdShim);
	const saved = {
		PI_OFFLINE: process.env.PI_OFFLINE,
		PI_CODING_AGENT_DIR: process.env.PI_CODING_AGENT_DIR,
		RIPGREP_CONFIG_PATH: process.env.RIPGREP_CONFIG_PATH,
	};
	process.env.PI_OFFLINE = "1";
	process.env.PI_CODING_AGENT_DIR = agentDir;
	process.env.RIPGREP_CONFIG_PATH = rgConfig;
	return {
		binaries,
		agentDir,
		setFdShim,
		useRgCrlf,
		dispose() {
			for (const [key, value] of Object.entries(saved)) {
				if (value === undefined) delete process.env[key];
				else process.env[key] = value;
			}
			rmSync(agentDir, { recursive: true, force: true });
		},
	};
}
