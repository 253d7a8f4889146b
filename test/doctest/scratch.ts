/**
 * Turns code examples into modules: the example's own lines unchanged, preceded by ONE line of
 * implicit imports (the package names it uses without importing them), so a diagnostic's line maps
 * straight back to the comment. Names the example uses from context come from the typed prelude.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import type { CodeExample, SourceFacts } from "./collect.js";
import { ENTRY_POINTS } from "./collect.js";
import { PRELUDE, PRELUDE_NAMES } from "./prelude.js";

/**
 * First line of a deliberately partial example (pseudo-code that cannot type-check as written).
 * Such blocks are counted and listed, never compiled or run.
 */
export const OPT_OUT_MARKER = "// pseudo-code";

/** One example as a module in the scratch dir. */
export interface ScratchModule {
	example: CodeExample;
	/** Absolute path of the module. */
	path: string;
	/** Prelude names the example uses (context it does not set up itself). */
	preludeNames: string[];
	/** Relative modules the example imports (user files such as "./my-extension.js"). */
	relativeImports: string[];
	/** Complete program: needs no prelude, declares nothing ambient, imports no user file: it runs as printed. */
	runnable: boolean;
	/** The module that is run: the same lines, with each `expr; // <literal>` turned into a check. */
	runPath: string;
	/** How many `expr; // <literal>` result comments the run checks. */
	resultChecks: number;
}

const LITERAL_KINDS = new Set([
	ts.SyntaxKind.ObjectLiteralExpression,
	ts.SyntaxKind.ArrayLiteralExpression,
	ts.SyntaxKind.PropertyAssignment,
	ts.SyntaxKind.StringLiteral,
	ts.SyntaxKind.NumericLiteral,
	ts.SyntaxKind.NoSubstitutionTemplateLiteral,
	ts.SyntaxKind.TrueKeyword,
	ts.SyntaxKind.FalseKeyword,
	ts.SyntaxKind.NullKeyword,
	ts.SyntaxKind.PrefixUnaryExpression,
	ts.SyntaxKind.ParenthesizedExpression,
]);

/** The comment as a value when it is nothing but a JSON-like literal (`true`, `"off"`, `{ a: 1 }`), else undefined. */
function literalComment(comment: string): string | undefined {
	const text = comment.trim();
	if (text === "" || text.includes("…")) return undefined; // an ellipsis abbreviates: not a claim to check
	const source = ts.createSourceFile("c.ts", `(${text});`, ts.ScriptTarget.ES2022, true);
	// parseDiagnostics is internal but long-stable; a comment that does not parse cleanly is prose.
	const parseErrors = (source as unknown as { parseDiagnostics?: readonly unknown[] }).parseDiagnostics ?? [];
	if (source.statements.length !== 1 || parseErrors.length > 0) return undefined;
	const statement = source.statements[0]!;
	if (!ts.isExpressionStatement(statement)) return undefined;
	let literal = true;
	const visit = (node: ts.Node): void => {
		if (ts.isIdentifier(node)) {
			// property names, and `undefined` as a value
			if (!(ts.isPropertyAssignment(node.parent) && node.parent.name === node) && node.text !== "undefined")
				literal = false;
		} else if (!LITERAL_KINDS.has(node.kind)) literal = false;
		if (literal) ts.forEachChild(node, visit);
	};
	visit((statement.expression as ts.ParenthesizedExpression).expression);
	return literal ? text : undefined;
}

/**
 * Rewrites each top-level `expr; // <literal>` of a runnable example into
 * `__doctestExpect(expr, <literal>, <source line>);` on the same line, so the run checks what the comment
 * claims the expression returns. Comments that are prose, or abbreviate with `…`, are left alone.
 */
export function withResultChecks(code: string, firstLine = 1): { code: string; checks: number } {
	const source = ts.createSourceFile("example.ts", code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
	const lines = code.split("\n");
	let checks = 0;
	for (const statement of source.statements) {
		if (!ts.isExpressionStatement(statement)) continue;
		const start = source.getLineAndCharacterOfPosition(statement.getStart());
		const end = source.getLineAndCharacterOfPosition(statement.getEnd());
		if (start.line !== end.line) continue;
		const line = lines[start.line]!;
		const rest = line.slice(end.character);
		const match = /^\s*\/\/(.*)$/.exec(rest);
		const expected = match ? literalComment(match[1]!) : undefined;
		if (expected === undefined) continue;
		const call = statement.expression;
		const check = (expression: ts.Expression) =>
			`__doctestExpect((${expression.getText(source)}), (${expected}), ${firstLine + start.line})`;
		// `console.log(x); // value` claims what x is: check x, and still print it.
		const rewritten =
			ts.isCallExpression(call) && call.getText(source).startsWith("console.log(") && call.arguments.length === 1
				? `console.log(${check(call.arguments[0]!)})`
				: check(call);
		lines[start.line] = `${line.slice(0, start.character)}${rewritten};${rest}`;
		checks++;
	}
	return { code: lines.join("\n"), checks };
}

/** Identifiers the example reads without declaring them (property names and declarations excluded). */
export function freeIdentifiers(code: string): { free: Set<string>; relativeImports: string[] } {
	const source = ts.createSourceFile("example.ts", code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
	const declared = new Set<string>();
	const used = new Set<string>();
	const relativeImports: string[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
			if (node.moduleSpecifier.text.startsWith(".")) relativeImports.push(node.moduleSpecifier.text);
		}
		if (ts.isIdentifier(node)) {
			const parent = node.parent;
			const isDeclarationName =
				(parent as ts.Node & { name?: ts.Node }).name === node &&
				!ts.isPropertyAccessExpression(parent) &&
				!ts.isShorthandPropertyAssignment(parent);
			if (isDeclarationName) {
				if (
					ts.isVariableDeclaration(parent) ||
					ts.isFunctionDeclaration(parent) ||
					ts.isClassDeclaration(parent) ||
					ts.isParameter(parent) ||
					ts.isBindingElement(parent) ||
					ts.isImportSpecifier(parent) ||
					ts.isImportClause(parent) ||
					ts.isNamespaceImport(parent) ||
					ts.isTypeAliasDeclaration(parent) ||
					ts.isInterfaceDeclaration(parent) ||
					ts.isEnumDeclaration(parent) ||
					ts.isTypeParameterDeclaration(parent) ||
					ts.isFunctionExpression(parent) ||
					ts.isClassExpression(parent)
				) {
					declared.add(node.text);
				}
			} else if (ts.isPropertyAccessExpression(parent) && parent.name === node) {
				// `a.b`: b is a property
			} else if (ts.isQualifiedName(parent) && parent.right === node) {
				// `A.B` in a type
			} else if (ts.isBindingElement(parent) && parent.propertyName === node) {
				// `{ b: local }`
			} else if (ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent)) {
				// `import { b as c }`
			} else if (ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) {
				// labels
			} else {
				used.add(node.text);
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	for (const name of declared) used.delete(name);
	return { free: used, relativeImports };
}

function importLine(names: Map<string, { specifier: string; isValue: boolean }>): string {
	const bySpecifier = new Map<string, string[]>();
	for (const [name, { specifier, isValue }] of names) {
		const list = bySpecifier.get(specifier) ?? [];
		list.push(isValue ? name : `type ${name}`);
		bySpecifier.set(specifier, list);
	}
	return [...bySpecifier].map(([specifier, list]) => `import { ${list.join(", ")} } from "${specifier}";`).join(" ");
}

/**
 * Writes every example (except opt-outs) as `<dir>/ex-<n>.ts`, the prelude as `<dir>/prelude.d.ts`,
 * and a tsconfig with the project's options that maps "settle", "settle/testing" and "settle/inspect"
 * to the sources. Returns the modules and the opted-out examples.
 */
export function writeScratch(
	root: string,
	dir: string,
	facts: SourceFacts,
): { modules: ScratchModule[]; optedOut: CodeExample[] } {
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	const modules: ScratchModule[] = [];
	const optedOut: CodeExample[] = [];
	facts.examples.forEach((example, index) => {
		if (example.code.trimStart().startsWith(OPT_OUT_MARKER)) {
			optedOut.push(example);
			return;
		}
		const { free, relativeImports } = freeIdentifiers(example.code);
		const own = example.declaringFile ? facts.moduleExports.get(example.declaringFile) : undefined;
		const fromDeclaringModule = example.declaringFile
			? `./${relative(dir, join(root, example.declaringFile)).replace(/\.ts$/, ".js")}`
			: "";
		const implicit = new Map<string, { specifier: string; isValue: boolean }>();
		const preludeNames: string[] = [];
		for (const name of [...free].sort()) {
			const isPublic = facts.publicNames.get(name);
			if (isPublic) implicit.set(name, isPublic);
			else if (own?.has(name)) implicit.set(name, { specifier: fromDeclaringModule, isValue: own.get(name)! });
			else if (PRELUDE_NAMES.has(name)) preludeNames.push(name);
		}
		const path = join(dir, `ex-${String(index).padStart(3, "0")}.ts`);
		const header = `${importLine(implicit)} // ${example.file}:${example.line} ${example.name}`;
		writeFileSync(path, `${header}\n${example.code}\nexport {};\n`);
		const runPath = join(dir, `run-${String(index).padStart(3, "0")}.ts`);
		const checked = withResultChecks(example.code, example.line);
		writeFileSync(runPath, `${header}\n${checked.code}\nexport {};\n`);
		modules.push({
			example,
			path,
			preludeNames,
			relativeImports,
			runnable: preludeNames.length === 0 && relativeImports.length === 0 && !/^\s*declare /m.test(example.code),
			runPath,
			resultChecks: checked.checks,
		});
	});
	writeFileSync(join(dir, "prelude.d.ts"), PRELUDE);
	const toRoot = relative(dir, root) || ".";
	const paths = Object.fromEntries(ENTRY_POINTS.map((e) => [e.specifier, [`${toRoot}/${e.file}`]]));
	writeFileSync(
		join(dir, "tsconfig.json"),
		JSON.stringify({
			extends: `${toRoot}/tsconfig.json`,
			compilerOptions: { rootDir: toRoot, paths, noUnusedLocals: false, noUnusedParameters: false },
			include: ["ex-*.ts", "prelude.d.ts"],
		}),
	);
	return { modules, optedOut };
}
