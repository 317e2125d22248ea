// What the TypeScript compiler says each call in a tree resolves to (benchmarks/graph_accuracy_langs.py).
//
// usage: node ts_oracle.js <tree> <file-list.json>   (TS_MODULE: path of the `typescript` package to load)
// Prints one JSON object per call: {file, line, col, name, decls: [{file, line, name, kind}]}; line is 1-based,
// col the 0-based UTF-16 column of the callee's name; a declaration outside the tree has file "".
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require(process.env.TS_MODULE || "typescript");

const tree = path.resolve(process.argv[2]);
const files = JSON.parse(fs.readFileSync(process.argv[3], "utf8")).map((f) => path.join(tree, f));
const program = ts.createProgram(files, {
  allowJs: true,
  checkJs: false,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  // Bundler resolution maps `./x.js` to `./x.ts` and finds extensionless and index-file imports.
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  resolveJsonModule: true,
  jsx: ts.JsxEmit.Preserve,
  experimentalDecorators: true,
  skipLibCheck: true,
  types: [],
});
const checker = program.getTypeChecker();

function relative(fileName) {
  const rel = path.relative(tree, fileName);
  return rel.startsWith("..") || path.isAbsolute(rel) || rel.split(path.sep).includes("node_modules")
    ? ""
    : rel.split(path.sep).join("/");
}

function calleeName(expr) {
  // Only callees the index captures: a name, or the property of a member access.
  while (ts.isParenthesizedExpression(expr) || ts.isNonNullExpression(expr)) expr = expr.expression;
  if (ts.isIdentifier(expr)) return expr;
  if (ts.isPropertyAccessExpression(expr) && ts.isIdentifier(expr.name)) return expr.name;
  return null;
}

function declarations(node) {
  let symbol = checker.getSymbolAtLocation(node);
  if (!symbol) return [];
  if (symbol.flags & ts.SymbolFlags.Alias) {
    try {
      symbol = checker.getAliasedSymbol(symbol);
    } catch (e) {
      return [];
    }
  }
  return (symbol.declarations || []).map((d) => {
    const sf = d.getSourceFile();
    const at = d.name && d.name.getStart ? d.name.getStart(sf) : d.getStart(sf);
    return {
      file: relative(sf.fileName),
      line: sf.getLineAndCharacterOfPosition(at).line + 1,
      // A default export's symbol is called "default"; the declaration keeps the name the index knows it by.
      name: d.name && ts.isIdentifier(d.name) ? d.name.text : symbol.name,
      kind: ts.SyntaxKind[d.kind],
    };
  });
}

const wanted = new Set(files.map((f) => path.resolve(f)));
const out = [];
for (const sf of program.getSourceFiles()) {
  if (!wanted.has(path.resolve(sf.fileName))) continue;
  const file = relative(sf.fileName);
  const visit = (node) => {
    // A tagged template (`` _`code` ``) is a call too, as tree-sitter sees it.
    const callee = ts.isTaggedTemplateExpression(node) ? node.tag : node.expression;
    if (ts.isCallExpression(node) || ts.isNewExpression(node) || ts.isTaggedTemplateExpression(node)) {
      const name = calleeName(callee);
      if (name) {
        const pos = sf.getLineAndCharacterOfPosition(name.getStart(sf));
        out.push(JSON.stringify({ file, line: pos.line + 1, col: pos.character, name: name.text, decls: declarations(name) }));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
process.stdout.write(out.join("\n") + (out.length ? "\n" : ""));
