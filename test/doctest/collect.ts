/**
 * Finds the code users copy: every ```ts block under an `@example` tag in src/** and machines/**, and every ```ts
 * block of the repo's Markdown docs, plus which declarations the package entry points export (and
 * which of those carry no TSDoc). One TypeScript program over the sources, no type checking.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The package's public entry points (package.json `exports`), as source files. */
export const ENTRY_POINTS = [
	{ specifier: "settle", file: "src/index.ts" },
	{ specifier: "settle/testing", file: "src/testing/index.ts" },
	{ specifier: "settle/inspect", file: "src/inspect/index.ts" },
	{ specifier: "settle/rpc", file: "src/rpc/index.ts" },
] as const;

/** The repo's Markdown docs: README.md, DESIGN.md and every `.md` under docs/ (the race table). */
export const MARKDOWN_DOCS = [
	"README.md",
	"DESIGN.md",
	...docsFolder(fileURLToPath(new URL("../..", import.meta.url))),
];

/** Every `.md` file under `root`'s docs/ folder, repo-relative; none when there is no docs/ folder. */
function docsFolder(root: string): string[] {
	try {
		const nested = readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" });
		return nested.filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`);
	} catch {
		return [];
	}
}

/** One code block a user can copy. */
export interface CodeExample {
	/** Repo-relative path of the file holding the block. */
	file: string;
	/** 1-based line in `file` of the block's first code line. */
	line: number;
	/** The declaration the TSDoc belongs to (`Class.member`), or the Markdown section heading. */
	name: string;
	/** True when that declaration is reachable from a package entry point. */
	exported: boolean;
	/** The code, with the comment's leading `*` removed. */
	code: string;
	/** For TSDoc examples: the module that declares `name` (implicit imports may come from it). */
	declaringFile?: string;
}

/** A name the package entry points export, and how an example would import it. */
export interface PublicName {
	specifier: string;
	/** False for type-only exports (they must be imported with `import type` under verbatimModuleSyntax). */
	isValue: boolean;
}

/** What the source walk found. */
export interface SourceFacts {
	examples: CodeExample[];
	/** Exported name → where to import it from (the first entry point that exports it). */
	publicNames: Map<string, PublicName>;
	/** Repo-relative source file → its own exported names (value or type). */
	moduleExports: Map<string, Map<string, boolean>>;
	/** `<specifier> <name> (<file>:<line>)` of every entry-point export without a TSDoc comment, sorted. */
	undocumented: string[];
}

function sourceFiles(dir: string): string[] {
	const out: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) out.push(...sourceFiles(path));
		else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(path);
	}
	return out.sort();
}

/** The ```ts fenced blocks of a text, each with the 0-based index of its first code line. */
export function fencedTsBlocks(lines: readonly string[]): { start: number; code: string }[] {
	const blocks: { start: number; code: string }[] = [];
	for (let i = 0; i < lines.length; i++) {
		if (!/^\s*```(ts|typescript)\s*$/.test(lines[i]!)) continue;
		const end = lines.findIndex((l, j) => j > i && /^\s*```\s*$/.test(l));
		if (end === -1) throw new Error(`unclosed code fence at line ${i + 1}`);
		blocks.push({ start: i + 1, code: lines.slice(i + 1, end).join("\n") });
		i = end;
	}
	return blocks;
}

/** `Outer.inner` style name of the declaration a JSDoc comment is attached to. */
function declarationName(node: ts.Node): string {
	const parts: string[] = [];
	for (let at: ts.Node | undefined = node; at && !ts.isSourceFile(at); at = at.parent) {
		if (ts.isVariableStatement(at)) {
			parts.unshift(at.declarationList.declarations.map((d) => d.name.getText()).join(","));
			continue;
		}
		if (ts.isExportDeclaration(at) && at.exportClause && ts.isNamedExports(at.exportClause)) {
			parts.unshift(at.exportClause.elements.map((e) => e.name.text).join(","));
			continue;
		}
		const name = (at as ts.Node & { name?: ts.Node }).name;
		if (name && (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier(name))) {
			parts.unshift(name.text);
		} else if (ts.isConstructorDeclaration(at)) parts.unshift("constructor");
	}
	return parts.join(".") || "(file)";
}

function hasDoc(node: ts.Node): boolean {
	let target: ts.Node = node;
	if (ts.isVariableDeclaration(node)) target = node.parent.parent; // the VariableStatement holds the comment
	if (ts.isExportSpecifier(node)) target = node.parent.parent; // `/** doc */ export { x } from "…"`
	const docs = (target as ts.Node & { jsDoc?: ts.JSDoc[] }).jsDoc;
	return !!docs?.length;
}

/**
 * Folders whose TSDoc is published: src/**, and machines/ (settle/inspect exports the machine
 * definitions, and `settle` the retry planning, straight from there).
 */
export const SOURCE_DIRS = ["src", "machines"];

/**
 * A compiler host that parses each file once for every program built with it: the doc-test's two
 * programs (the source walk, then the examples' type check) share the sources and their
 * dependencies' declarations, parsed and bound once. The programs must agree on what parsing and
 * binding read (target, module, strictness); `paths` or unused-name checks may differ.
 */
export function sharedSourceHost(options: ts.CompilerOptions): ts.CompilerHost {
	const host = ts.createCompilerHost(options);
	const parse = host.getSourceFile.bind(host);
	const parsed = new Map<string, ts.SourceFile>();
	host.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile) => {
		const version =
			typeof languageVersionOrOptions === "object"
				? `${languageVersionOrOptions.languageVersion} ${languageVersionOrOptions.impliedNodeFormat}`
				: String(languageVersionOrOptions);
		const key = `${version} ${fileName}`;
		const cached = shouldCreateNewSourceFile ? undefined : parsed.get(key);
		if (cached) return cached;
		const source = parse(fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile);
		if (source) parsed.set(key, source);
		return source;
	};
	return host;
}

/**
 * Walks src/**, machines/** and the Markdown docs. `program`: the options (and a
 * {@link sharedSourceHost} made with them) to read the sources with, default a plain NodeNext set.
 */
export function collectSourceFacts(
	root: string,
	program?: { options: ts.CompilerOptions; host: ts.CompilerHost },
): SourceFacts {
	const files = SOURCE_DIRS.flatMap((dir) => sourceFiles(join(root, dir)));
	const options = program?.options ?? {
		target: ts.ScriptTarget.ES2022,
		module: ts.ModuleKind.NodeNext,
		moduleResolution: ts.ModuleResolutionKind.NodeNext,
		skipLibCheck: true,
		types: ["node"],
	};
	const sources = ts.createProgram({ rootNames: files, options: { ...options, noEmit: true }, host: program?.host });
	const checker = sources.getTypeChecker();
	const rel = (path: string) => relative(root, path).split("\\").join("/");

	// Entry-point exports: which declarations users can reach, and where each name is imported from.
	const publicNames = new Map<string, PublicName>();
	const reachable = new Set<ts.Node>();
	const undocumented: string[] = [];
	for (const entry of ENTRY_POINTS) {
		const source = sources.getSourceFile(join(root, entry.file));
		const moduleSymbol = source && checker.getSymbolAtLocation(source);
		if (!moduleSymbol) throw new Error(`entry point ${entry.file} not found`);
		for (const exported of checker.getExportsOfModule(moduleSymbol)) {
			const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
			const declarations = target.declarations ?? [];
			for (const d of declarations) reachable.add(d);
			const isValue = (target.flags & ts.SymbolFlags.Value) !== 0;
			if (!publicNames.has(exported.name)) publicNames.set(exported.name, { specifier: entry.specifier, isValue });
			const documented =
				declarations.some(hasDoc) || (exported.declarations ?? []).some((d) => d !== source && hasDoc(d));
			if (!documented) {
				const at = declarations[0];
				const where = at
					? ` (${rel(at.getSourceFile().fileName)}:${at.getSourceFile().getLineAndCharacterOfPosition(at.getStart()).line + 1})`
					: "";
				undocumented.push(`${entry.specifier} ${exported.name}${where}`);
			}
		}
	}

	const examples: CodeExample[] = [];
	const moduleExports = new Map<string, Map<string, boolean>>();
	for (const path of files) {
		const source = sources.getSourceFile(path)!;
		const file = rel(path);
		const moduleSymbol = checker.getSymbolAtLocation(source);
		const own = new Map<string, boolean>();
		for (const exported of moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : []) {
			const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
			own.set(exported.name, (target.flags & ts.SymbolFlags.Value) !== 0);
		}
		moduleExports.set(file, own);

		const text = source.getFullText();
		const visit = (node: ts.Node): void => {
			for (const doc of (node as ts.Node & { jsDoc?: ts.JSDoc[] }).jsDoc ?? []) {
				if (!doc.getText().includes("@example")) continue;
				const startLine = source.getLineAndCharacterOfPosition(doc.getStart()).line;
				const lines = text
					.slice(doc.getStart(), doc.getEnd())
					.split("\n")
					.map((l) => l.replace(/^\s*\/?\*\*?\/?\s?/, "").replace(/\s*\*\/\s*$/, ""));
				const exampleAt = lines.findIndex((l) => l.includes("@example"));
				for (const block of fencedTsBlocks(lines.slice(exampleAt))) {
					examples.push({
						file,
						line: startLine + exampleAt + block.start + 1,
						name: declarationName(node),
						exported: isReachable(node, reachable),
						code: block.code,
						declaringFile: file,
					});
				}
			}
			ts.forEachChild(node, visit);
		};
		visit(source);
	}

	for (const doc of ["README.md", "DESIGN.md", ...docsFolder(root)]) {
		let lines: string[];
		try {
			lines = readFileSync(join(root, doc), "utf8").split("\n");
		} catch {
			continue;
		}
		for (const block of fencedTsBlocks(lines)) {
			const heading = lines
				.slice(0, block.start)
				.reverse()
				.find((l) => l.startsWith("#"));
			examples.push({
				file: doc,
				line: block.start + 1,
				name: heading?.replace(/^#+\s*/, "") ?? "(top)",
				exported: true,
				code: block.code,
			});
		}
	}
	return { examples, publicNames, moduleExports, undocumented: undocumented.sort() };
}

/** A declaration is reachable when it, its variable statement or an enclosing class/interface is exported. */
function isReachable(node: ts.Node, reachable: Set<ts.Node>): boolean {
	for (let at: ts.Node | undefined = node; at && !ts.isSourceFile(at); at = at.parent) {
		if (reachable.has(at)) return true;
		if (ts.isVariableStatement(at) && at.declarationList.declarations.some((d) => reachable.has(d))) return true;
	}
	return false;
}
