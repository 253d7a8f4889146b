/**
 * `settle install|remove|uninstall|list|update`: pi's package commands, with pi 0.73.1's rules
 * (`package-manager-cli.js`, `core/package-manager.js`). npm packages are installed with the real
 * `npm` (or `npmCommand`): globally with `npm install -g` (where pi puts them, so pi and Settle share
 * them), per project under `<project folder>/npm/`; git packages are cloned with the real `git` into
 * `<agent folder>/git/<host>/<path>` or `<project folder>/git/<host>/<path>`; local paths are only
 * recorded. The settings file is changed through the SettingsManager (its lock and merge rules).
 */

import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { errorMessage } from "../errors.js";
import { loadChildProcess } from "../lazy-deps.js";
import {
	type PackageRoots,
	type PackageScope,
	type ParsedPackageSource,
	packageIdentity,
	packageInstallPath,
	packageSourceOf,
	parsePackageSource,
} from "../resources/packages.js";
import { expandHome, getDefaultAgentDir, homeFolder, resolveProjectConfigDir } from "../settings/paths.js";
import type { PackageSource } from "../settings/schema.js";
import { SettingsManager } from "../settings/settings-manager.js";
import { makeFolders } from "../store/folders.js";
import { projectDirectory } from "./args.js";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./help.js";
import type { CliOutput } from "./print-mode.js";

/** The first words that run a package command. */
export const PACKAGE_COMMANDS: ReadonlySet<string> = new Set(["install", "remove", "uninstall", "update", "list"]);

/** Settle's options of every package command (where the project and the agent folder are). */
const FOLDER_OPTIONS = " [--cwd <dir>] [--agent-dir <dir>]";

const USAGE: Record<string, string> = {
	install: `settle install <source> [-l|--local]${FOLDER_OPTIONS}`,
	remove: `settle remove <source> [-l|--local]${FOLDER_OPTIONS}`,
	uninstall: `settle uninstall <source> [-l|--local]${FOLDER_OPTIONS}`,
	update: `settle update [source]${FOLDER_OPTIONS}`,
	list: `settle list${FOLDER_OPTIONS}`,
};

/**
 * The options a package command takes besides `-h` / `--help`: pi's `-l` / `--local` for install
 * and remove, Settle's `--agent-dir` and `--cwd` for all. Internal (its usage is checked against it).
 */
export function packageCommandOptions(command: string): string[] {
	const takesSource = command === "install" || command === "remove" || command === "uninstall";
	return [...(takesSource ? ["-l", "--local"] : []), "--agent-dir", "--cwd"];
}

/**
 * Runs `settle <command> …` for a package command (`argv` without the command word) and returns the
 * exit code: 0 done, 1 the install or lookup failed (stderr says why), 2 a usage mistake.
 *
 * @example
 * ```ts
 * const code = await runPackageCommand("install", ["npm:pi-tools", "-l"], { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) });
 * ```
 */
export async function runPackageCommand(command: string, argv: readonly string[], out: CliOutput): Promise<number> {
	const parsed = parsePackageCommand(command, argv);
	if (parsed.help) {
		out.stdout(`Usage: ${USAGE[command]}\n`);
		return EXIT_OK;
	}
	if (parsed.problem) {
		out.stderr(`Error: ${parsed.problem}\nUsage: ${USAGE[command]}\n`);
		return EXIT_USAGE;
	}
	const { local, source } = parsed;
	// The same project folder a session of that --cwd uses (symlinks resolved).
	const cwd = projectDirectory(parsed.cwd === undefined ? {} : { cwd: parsed.cwd });
	const agentDir = parsed.agentDir ? resolve(expandHome(parsed.agentDir)) : getDefaultAgentDir();
	// The user asked for this project's settings by name (-l), so its trust does not gate the write.
	const settings = SettingsManager.create(cwd, agentDir);
	for (const problem of settings.getErrors().filter((d) => d.type === "error"))
		out.stderr(`Warning: ${problem.message}\n`);
	const manager = new PackageCommands(cwd, agentDir, settings, out);
	try {
		if (command === "install") return await manager.install(source!, local ? "project" : "user");
		if (command === "remove" || command === "uninstall")
			return await manager.remove(source!, local ? "project" : "user");
		if (command === "list") return manager.list();
		return await manager.update(source);
	} catch (error) {
		out.stderr(`Error: ${errorMessage(error)}\n`);
		return EXIT_FAILURE;
	}
}

/** A package command line, parsed: `problem` is a usage mistake to report. */
export interface ParsedPackageCommand {
	help: boolean;
	problem?: string;
	local: boolean;
	source?: string;
	agentDir?: string;
	cwd?: string;
}

/**
 * Parses the arguments after a package command word (pi's: `-l` / `--local` for install and remove,
 * one source; Settle's `--agent-dir` and `--cwd` too). Pure.
 *
 * @example
 * ```ts
 * parsePackageCommand("install", ["npm:pi-tools", "-l"]); // { help: false, local: true, source: "npm:pi-tools" }
 * parsePackageCommand("list", ["-l"]).problem; // 'Unknown option -l for "list".'
 * ```
 */
export function parsePackageCommand(command: string, argv: readonly string[]): ParsedPackageCommand {
	const result: ParsedPackageCommand = { help: false, local: false };
	const positional: string[] = [];
	const takesSource = command === "install" || command === "remove" || command === "uninstall";
	const options = packageCommandOptions(command);
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i]!;
		if (arg === "-h" || arg === "--help") return { ...result, help: true };
		if (!options.includes(arg) && arg.startsWith("-")) {
			return { ...result, problem: `Unknown option ${arg} for "${command}".` };
		}
		if (arg === "-l" || arg === "--local") {
			result.local = true;
		} else if (arg === "--agent-dir" || arg === "--cwd") {
			const value = argv[++i];
			if (!value) return { ...result, problem: `Option ${arg} requires a value.` };
			if (arg === "--agent-dir") result.agentDir = value;
			else result.cwd = value;
		} else {
			positional.push(arg);
		}
	}
	const maxPositional = command === "list" ? 0 : 1;
	if (positional.length > maxPositional)
		return { ...result, problem: `Unexpected argument ${positional[maxPositional]}.` };
	if (positional[0] !== undefined) result.source = positional[0];
	if (takesSource && result.source === undefined) return { ...result, problem: `Missing ${command} source.` };
	return result;
}

class PackageCommands {
	private readonly roots: PackageRoots;

	constructor(
		private readonly cwd: string,
		agentDir: string,
		private readonly settings: SettingsManager,
		private readonly out: CliOutput,
	) {
		const home = homeFolder();
		this.roots = {
			agentDir,
			projectDir: resolveProjectConfigDir(cwd).dir,
			npmCommand: settings.getNpmCommand(),
			...(home === undefined ? {} : { home }),
		};
	}

	async install(source: string, scope: PackageScope): Promise<number> {
		const parsed = parsePackageSource(source);
		this.out.stdout(`Installing ${source}...\n`);
		if (parsed.type === "local") {
			const path = resolve(this.cwd, expandHome(parsed.path.trim(), this.roots.home));
			if (!existsSync(path))
				throw new Error(`Path does not exist: ${path}. Give the folder (or extension file) of the package.`);
		} else {
			await this.installParsed(parsed, scope);
		}
		this.addToSettings(source, scope);
		this.out.stdout(`Installed ${source}\n`);
		return EXIT_OK;
	}

	async remove(source: string, scope: PackageScope): Promise<number> {
		const parsed = parsePackageSource(source);
		this.out.stdout(`Removing ${source}...\n`);
		const current = this.listed(scope);
		const key = this.inputKey(source);
		const next = current.filter((entry) => packageIdentity(packageSourceOf(entry), scope, this.roots) !== key);
		// Checked before anything is uninstalled: npm's global folder is pi's too, and a package the
		// other settings file lists is not this scope's to take away (pi#5966).
		if (next.length === current.length) {
			const other: PackageScope = scope === "user" ? "project" : "user";
			const listedThere = this.listed(other).some(
				(entry) => packageIdentity(packageSourceOf(entry), other, this.roots) === key,
			);
			const hint = listedThere
				? `; ${this.settingsPath(other)} lists it: settle remove ${source}${other === "project" ? " -l" : ""}`
				: ". settle list shows what is installed.";
			this.out.stderr(`Error: No matching package found for ${source} in ${this.settingsPath(scope)}${hint}\n`);
			return EXIT_FAILURE;
		}
		if (parsed.type === "npm") {
			if (scope === "user") await this.npm(["uninstall", "-g", parsed.name]);
			else if (existsSync(this.npmProjectRoot()))
				await this.npm(["uninstall", parsed.name, "--prefix", this.npmProjectRoot()]);
		} else if (parsed.type === "git") {
			const target = packageInstallPath(parsed, scope, this.roots);
			if (existsSync(target)) {
				rmSync(target, { recursive: true, force: true });
				pruneEmptyParents(target, join(scope === "project" ? this.roots.projectDir : this.roots.agentDir, "git"));
			}
		}
		this.settings.updatePackages(scope === "project" ? "project" : "global", (packages) =>
			packages.filter((entry) => packageIdentity(packageSourceOf(entry), scope, this.roots) !== key),
		);
		this.out.stdout(`Removed ${source}\n`);
		return EXIT_OK;
	}

	list(): number {
		const sections: [string, PackageScope][] = [
			["User packages:", "user"],
			["Project packages:", "project"],
		];
		const lines: string[] = [];
		for (const [title, scope] of sections) {
			const entries = this.listed(scope);
			if (entries.length === 0) continue;
			if (lines.length > 0) lines.push("");
			lines.push(title);
			for (const entry of entries) {
				const source = packageSourceOf(entry);
				lines.push(`  ${source}${typeof entry === "object" ? " (filtered)" : ""}`);
				let path: string | undefined;
				try {
					path = packageInstallPath(parsePackageSource(source), scope, this.roots);
				} catch {
					path = undefined;
				}
				lines.push(path && existsSync(path) ? `    ${path}` : "    (not installed)");
			}
		}
		this.out.stdout(lines.length === 0 ? "No packages installed.\n" : `${lines.join("\n")}\n`);
		return EXIT_OK;
	}

	async update(source: string | undefined): Promise<number> {
		const key = source === undefined ? undefined : this.inputKey(source);
		const targets: { source: string; scope: PackageScope }[] = [];
		for (const scope of ["user", "project"] as const) {
			for (const entry of this.listed(scope)) {
				const listed = packageSourceOf(entry);
				if (key === undefined || packageIdentity(listed, scope, this.roots) === key)
					targets.push({ source: listed, scope });
			}
		}
		if (source !== undefined && targets.length === 0) {
			throw new Error(`No matching package found for ${source}. settle list shows the packages settings name.`);
		}
		// One package that cannot update (its remote gone, a broken dependency) must not keep the others
		// at their old versions: each is tried, and the failures are named at the end.
		const failed: string[] = [];
		for (const target of targets) {
			const parsed = parsePackageSource(target.source);
			// Local packages and pinned ones (a version, a tag, a commit) stay as they are, as in pi; a git
			// package checked out at a branch follows it (pi#2592; pi 0.73.1 skips it too).
			if (parsed.type === "local") continue;
			if (parsed.pinned && !(parsed.type === "git" && this.followsBranch(parsed, target.scope))) continue;
			try {
				// An npm package already at the latest version is not installed again (pi#3000: every update
				// reinstalled each package and its dependencies).
				if (parsed.type === "npm" && (await this.npmIsLatest(parsed, target.scope))) continue;
				this.out.stdout(`Updating ${target.source}...\n`);
				if (parsed.type === "npm") await this.installNpm(`${parsed.name}@latest`, target.scope);
				else await this.updateGit(parsed, target.scope);
			} catch (error) {
				this.out.stderr(`Error: ${target.source} not updated: ${errorMessage(error)}\n`);
				failed.push(target.source);
			}
		}
		if (failed.length > 0) {
			this.out.stderr(
				`Error: ${failed.join(", ")} not updated; the other packages were. Fix what the errors above say, then run settle update again.\n`,
			);
			return EXIT_FAILURE;
		}
		this.out.stdout(source === undefined ? "Updated packages\n" : `Updated ${source}\n`);
		return EXIT_OK;
	}

	private async installParsed(parsed: Exclude<ParsedPackageSource, { type: "local" }>, scope: PackageScope) {
		if (parsed.type === "npm") {
			await this.installNpm(parsed.spec, scope);
			return;
		}
		const target = packageInstallPath(parsed, scope, this.roots);
		if (existsSync(target)) {
			if (!isInterruptedClone(target)) return;
			// A clone interrupted before its checkout (pi leaves one where it was going, pi#7189) holds
			// nothing of the user's: clone again.
			rmSync(target, { recursive: true, force: true });
		}
		const gitRoot = join(scope === "project" ? this.roots.projectDir : this.roots.agentDir, "git");
		ensureGitIgnore(gitRoot);
		makeFolders(dirname(target));
		// Cloned, checked out and given its dependencies beside its place, then renamed into it: a step
		// that fails leaves no folder a later install would take for the package (pi#7189).
		const staging = stagingFolderOf(target);
		try {
			await run("git", ["clone", parsed.repo, staging]);
			if (parsed.ref) await run("git", ["checkout", parsed.ref], staging);
			if (existsSync(join(staging, "package.json"))) await this.npm(this.dependencyInstallArgs(), staging);
			renameSync(staging, target);
		} catch (error) {
			rmSync(staging, { recursive: true, force: true });
			pruneEmptyParents(target, gitRoot);
			throw error;
		}
	}

	private async updateGit(parsed: Extract<ParsedPackageSource, { type: "git" }>, scope: PackageScope) {
		const target = packageInstallPath(parsed, scope, this.roots);
		if (!existsSync(target)) {
			await this.installParsed(parsed, scope);
			return;
		}
		await run("git", ["fetch", "--prune", "origin"], target);
		await run("git", ["reset", "--hard", "@{upstream}"], target);
		// As pi: an installed package is kept pristine.
		await run("git", ["clean", "-fdx"], target);
		if (existsSync(join(target, "package.json"))) await this.npm(this.dependencyInstallArgs(), target);
	}

	/** Whether the package's clone is checked out at a branch (it tracks one of origin's), not a tag or commit. */
	private followsBranch(parsed: Extract<ParsedPackageSource, { type: "git" }>, scope: PackageScope): boolean {
		const target = packageInstallPath(parsed, scope, this.roots);
		if (!hasCheckedOutCommit(target)) return false;
		const upstream = loadChildProcess().spawnSync("git", ["rev-parse", "--abbrev-ref", "@{upstream}"], {
			cwd: target,
			encoding: "utf-8",
			stdio: ["ignore", "pipe", "ignore"],
		});
		return upstream.status === 0 && upstream.stdout.trim() === `origin/${parsed.ref}`;
	}

	/**
	 * Whether the installed version is the one `npm view` says is the latest (pi's check). False when
	 * either is unknown (not installed, npm cannot say): the update then installs, as before.
	 */
	private async npmIsLatest(parsed: Extract<ParsedPackageSource, { type: "npm" }>, scope: PackageScope) {
		let installed: unknown;
		try {
			const manifest = readFileSync(join(packageInstallPath(parsed, scope, this.roots), "package.json"), "utf-8");
			installed = (JSON.parse(manifest) as { version?: unknown }).version;
		} catch {
			return false;
		}
		const [command, ...prefix] =
			this.roots.npmCommand && this.roots.npmCommand.length > 0 ? this.roots.npmCommand : ["npm"];
		const latest = await capture(command!, [...prefix, "view", parsed.name, "version", "--json"]);
		try {
			return typeof installed === "string" && latest !== undefined && JSON.parse(latest) === installed;
		} catch {
			return false;
		}
	}

	private async installNpm(spec: string, scope: PackageScope) {
		if (scope === "user") {
			await this.npm(["install", "-g", spec]);
			return;
		}
		const root = this.npmProjectRoot();
		// A failed install (no such package, offline) leaves the project as it was.
		const undo = undoerOf(root);
		try {
			makeFolders(root);
			ensureGitIgnore(root);
			const manifest = join(root, "package.json");
			if (!existsSync(manifest))
				writeFileSync(manifest, JSON.stringify({ name: "pi-extensions", private: true }, null, 2));
			await this.npm(["install", spec, "--prefix", root]);
		} catch (error) {
			undo();
			throw error;
		}
	}

	private npmProjectRoot(): string {
		return join(this.roots.projectDir, "npm");
	}

	private dependencyInstallArgs(): string[] {
		return this.roots.npmCommand && this.roots.npmCommand.length > 0 ? ["install"] : ["install", "--omit=dev"];
	}

	private npm(args: string[], cwd?: string): Promise<void> {
		const [command, ...prefix] =
			this.roots.npmCommand && this.roots.npmCommand.length > 0 ? this.roots.npmCommand : ["npm"];
		return run(command!, [...prefix, ...args], cwd);
	}

	/** pi's key for a source given on the command line: a local path resolves against the cwd. */
	private inputKey(source: string): string {
		const parsed = parsePackageSource(source);
		if (parsed.type !== "local") return packageIdentity(source, undefined, this.roots);
		return `local:${resolve(this.cwd, expandHome(parsed.path.trim(), this.roots.home))}`;
	}

	private addToSettings(source: string, scope: PackageScope) {
		const key = this.inputKey(source);
		const parsed = parsePackageSource(source);
		// A local path is written relative to the settings file's folder, as pi writes it.
		const written =
			parsed.type === "local"
				? relative(scope === "project" ? this.roots.projectDir : this.roots.agentDir, key.slice("local:".length)) || "."
				: source;
		// Added to the list the file holds under its lock: another install running now keeps its entry (pi#8215).
		this.settings.updatePackages(scope === "project" ? "project" : "global", (packages) =>
			packages.some((entry) => packageIdentity(packageSourceOf(entry), scope, this.roots) === key)
				? packages
				: [...packages, written],
		);
	}

	private listed(scope: PackageScope): PackageSource[] {
		const file = scope === "project" ? this.settings.getProjectSettings() : this.settings.getGlobalSettings();
		return file.packages ?? [];
	}

	private settingsPath(scope: PackageScope): string {
		const paths = this.settings.getSettingsPaths();
		return scope === "project" ? paths.project : paths.global;
	}
}

/** Runs a command with its output on stderr (stdout stays Settle's), failing on a non-zero exit. */
function run(command: string, args: string[], cwd?: string): Promise<void> {
	return new Promise((resolvePromise, reject) => {
		const child = loadChildProcess().spawn(command, args, { cwd, stdio: ["ignore", 2, 2] });
		child.once("error", (error) =>
			reject(new Error(`${command} could not start: ${error.message}. Is it installed and on PATH?`)),
		);
		child.once("close", (code, signal) => {
			if (code === 0) resolvePromise();
			else
				reject(
					new Error(
						`${command} ${args.join(" ")} failed with ${code === null ? `signal ${signal}` : `code ${code}`} (its output is above)`,
					),
				);
		});
	});
}

/**
 * What undoes the files a failed step adds in `folder`: the folders it makes up to `folder` are
 * removed whole; in a folder that was there, the entries that were not (what was there is kept).
 */
function undoerOf(folder: string): () => void {
	let topMade: string | undefined;
	for (let current = resolve(folder); !existsSync(current); current = dirname(current)) topMade = current;
	if (topMade !== undefined) {
		const made = topMade;
		return () => rmSync(made, { recursive: true, force: true });
	}
	const before = new Set(readdirSync(folder));
	return () => {
		for (const name of readdirSync(folder))
			if (!before.has(name)) rmSync(join(folder, name), { recursive: true, force: true });
	};
}

/** Where an install is made before it is moved to `target`: beside it, hidden, one per process. */
function stagingFolderOf(target: string): string {
	return join(dirname(target), `.${basename(target)}.installing-${process.pid}`);
}

/** A folder git began to clone into but never checked a commit out in. */
function isInterruptedClone(folder: string): boolean {
	return existsSync(join(folder, ".git")) && !hasCheckedOutCommit(folder);
}

/** Whether `folder` is a git clone with a commit checked out. */
function hasCheckedOutCommit(folder: string): boolean {
	if (!existsSync(join(folder, ".git"))) return false;
	const head = loadChildProcess().spawnSync("git", ["rev-parse", "--verify", "--quiet", "HEAD"], {
		cwd: folder,
		env: { ...process.env, GIT_DIR: join(folder, ".git") },
		stdio: "ignore",
	});
	return head.status === 0;
}

/** A command's stdout when it exits 0 with some; undefined when it fails (its stderr is dropped). */
function capture(command: string, args: string[]): Promise<string | undefined> {
	return new Promise((resolvePromise) => {
		const child = loadChildProcess().spawn(command, args, { stdio: ["ignore", "pipe", "ignore"] });
		let stdout = "";
		child.stdout.setEncoding("utf-8");
		child.stdout.on("data", (chunk: string) => {
			stdout += chunk;
		});
		child.once("error", () => resolvePromise(undefined));
		child.once("close", (code) => resolvePromise(code === 0 && stdout.trim() !== "" ? stdout : undefined));
	});
}

function ensureGitIgnore(dir: string) {
	makeFolders(dir);
	const path = join(dir, ".gitignore");
	if (!existsSync(path)) writeFileSync(path, "*\n!.gitignore\n");
}

/** Removes the folders a removed clone leaves empty, up to (not including) the install root. */
function pruneEmptyParents(target: string, root: string) {
	let current = dirname(target);
	while (current.startsWith(resolve(root)) && current !== resolve(root)) {
		if (existsSync(current)) {
			if (readdirSync(current).length > 0) return;
			rmSync(current, { recursive: true, force: true });
		}
		current = dirname(current);
	}
}
