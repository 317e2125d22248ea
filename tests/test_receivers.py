"""Typed receivers for the languages bound by name (index/receivers.py): Go receivers, parameters, fields and module
imports; TypeScript parameter properties, super calls and re-exports. Each rule with a decoy it must not pick."""

from __future__ import annotations

from pathlib import Path

import pytest
from _factories import edge_target, index_repo, make_plain_repo, open_service

from igraph_mcp.index.receivers import go_element_type, type_text_name

GO_FILES = {
    "go.mod": "module example.com/demo\n\ngo 1.19\n",
    "parse/parser.go": (
        "package parse\n\n"
        'import (\n\t"bytes"\n\n\t"example.com/demo/ast"\n)\n\n'
        "type Parser struct {\n\tbuf *bytes.Buffer\n}\n\n"
        "type Doc struct {\n\tp *Parser\n}\n\n"
        'func (p *Parser) Parse() *ast.Node {\n\tp.next()\n\tp.buf.WriteString("x")\n\treturn ast.NewNode()\n}\n\n'
        "func (d *Doc) Build() {\n\td.p.Parse()\n}\n\n"
        "func Walk(n Visitor) {\n\tn.Visit()\n}\n\n"
        "func Fresh() {\n\tq := NewParser()\n\tq.next()\n}\n"
    ),
    "parse/lexer.go": (
        "package parse\n\n"
        "type Lexer struct{}\n\n"
        "func (l *Lexer) next() {}\n\n"
        "func (l *Lexer) Visit() {}\n\n"
        "func (p *Parser) next() {}\n\n"
        "func NewParser() *Parser { return &Parser{} }\n\n"
        "type Visitor interface {\n\tVisit()\n}\n"
    ),
    "parse/writer.go": "package parse\n\ntype Writer struct{}\n\nfunc (w *Writer) WriteString(s string) {}\n",
    "ast/node.go": "package ast\n\ntype Node struct{}\n\nfunc NewNode() *Node { return &Node{} }\n",
    "extension/ast/node.go": "package ast\n\ntype Node struct{}\n\nfunc NewNode() *Node { return &Node{} }\n",
}


@pytest.fixture
def go_repo(tmp_path: Path):  # type: ignore[no-untyped-def]
    svc = index_repo(make_plain_repo(tmp_path, GO_FILES))
    yield svc
    svc.close()


def test_go_receiver_method_in_another_file(go_repo) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(go_repo.db, "Parser.Parse", "next") == ("parse/lexer.go", "Parser.next", "inferred")


def test_go_module_path_import_names_the_exact_folder(go_repo) -> None:  # type: ignore[no-untyped-def]
    # extension/ast/ also ends in "ast" and defines NewNode: only the module's own ast/ folder is the package.
    assert edge_target(go_repo.db, "Parser.Parse", "NewNode") == ("ast/node.go", "NewNode", "import")


def test_go_field_of_a_typed_receiver(go_repo) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(go_repo.db, "Doc.Build", "Parse") == ("parse/parser.go", "Parser.Parse", "inferred")


def test_go_interface_parameter_binds_the_interface_method(go_repo) -> None:  # type: ignore[no-untyped-def]
    # Lexer.Visit is the only other Visit: a name-only guess would pick it.
    assert edge_target(go_repo.db, "Walk", "Visit") == ("parse/lexer.go", "Visitor.Visit", "inferred")


def test_go_variable_from_a_constructor_result(go_repo) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(go_repo.db, "Fresh", "next") == ("parse/lexer.go", "Parser.next", "inferred")


def test_go_receiver_of_an_outside_type_binds_nothing(go_repo) -> None:  # type: ignore[no-untyped-def]
    # p.buf is a *bytes.Buffer: Writer.WriteString, the one repository method of that name, is not it.
    assert edge_target(go_repo.db, "Parser.Parse", "WriteString") == (None, None, "external")


TS_FILES = {
    "src/lib/index.ts": "export * from './impl'\n",
    "src/lib/impl.ts": "export function helper(): number { return 1 }\n",
    "src/other/helper.ts": "export function helper(): number { return 2 }\n",
    "src/codegen.ts": ("export class CodeGen {\n  add(): void {}\n}\n\nexport class Other {\n  add(): void {}\n}\n"),
    "src/base.ts": "export class Base {\n  setup(): void {}\n}\n",
    "src/main.ts": (
        "import { CodeGen } from './codegen'\n"
        "import { Base } from './base'\n"
        "import { helper } from './lib'\n\n"
        "export class Main extends Base {\n"
        "  constructor(private gen: CodeGen, private plain) {\n    super()\n  }\n"
        "  setup(): void {\n    super.setup()\n    this.gen.add()\n    this.plain.setup()\n    helper()\n  }\n"
        "}\n\n"
        "export function run(g: CodeGen): void {\n  g.add()\n}\n"
    ),
}


@pytest.fixture
def ts_repo(tmp_path: Path):  # type: ignore[no-untyped-def]
    svc = index_repo(make_plain_repo(tmp_path, TS_FILES))
    yield svc
    svc.close()


def test_ts_super_call_binds_the_base_method(ts_repo) -> None:  # type: ignore[no-untyped-def]
    rows = ts_repo.db.rows(
        "SELECT t.qualified_name, e.resolution FROM edges e JOIN nodes s ON s.id = e.source_id "
        "LEFT JOIN nodes t ON t.id = e.target_id WHERE s.qualified_name = 'Main.setup' AND e.target_name = 'setup' "
        "AND e.qualifier = 'super'"
    )
    assert [tuple(r) for r in rows] == [("Base.setup", "inferred")]  # never Main.setup, the override itself


def test_ts_parameter_property_types_this_field(ts_repo) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(ts_repo.db, "Main.setup", "add") == ("src/codegen.ts", "CodeGen.add", "inferred")


def test_ts_untyped_field_is_not_this_class(ts_repo) -> None:  # type: ignore[no-untyped-def]
    rows = ts_repo.db.rows(
        "SELECT e.target_id FROM edges e JOIN nodes s ON s.id = e.source_id WHERE s.qualified_name = 'Main.setup' "
        "AND e.qualifier = 'this.plain'"
    )
    assert [r[0] for r in rows] == [None]  # this.plain.setup() is not Main.setup


def test_ts_annotated_parameter(ts_repo) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(ts_repo.db, "run", "add") == ("src/codegen.ts", "CodeGen.add", "inferred")


def test_ts_import_through_an_index_file_reexport(ts_repo) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(ts_repo.db, "Main.setup", "helper") == ("src/lib/impl.ts", "helper", "import")


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("*Parser", "Parser"),
        ("ast.Node", "ast.Node"),
        ("Foo<T>|undefined", "Foo"),
        ("(Command|null)", "Command"),
        ("Map[string]int", "Map"),
        ("[]Node", None),
        ("Node[]", None),
        ("A|B", None),
        ("func()error", None),
        ("", None),
    ],
)
def test_type_text_name(text: str, name: str | None) -> None:
    assert type_text_name(text) == name


JS_FILES = {
    "lib/help.js": (
        "class Help {\n"
        "  /**\n   * @param {Command} cmd\n   */\n"
        "  names(cmd) {\n    return cmd.list()\n  }\n"
        "}\n\n"
        "class Command {\n"
        "  list() { return [] }\n"
        "  static parse(args) {\n    const c = new Command()\n    return c.parse(args)\n  }\n"
        "  parse(args) {\n    return this.parse(args.slice(1))\n  }\n"
        "  static start(args) {\n    return this.parse(args)\n  }\n"
        "}\n\n"
        "class Other {\n  list() { return [] }\n}\n\n"
        "function run(ctx) {\n  const { cmd } = ctx\n  return cmd.list()\n}\n"
    ),
}


@pytest.fixture
def js_repo(tmp_path: Path):  # type: ignore[no-untyped-def]
    svc = index_repo(make_plain_repo(tmp_path, JS_FILES))
    yield svc
    svc.close()


def test_js_jsdoc_parameter_type(js_repo) -> None:  # type: ignore[no-untyped-def]
    # Other.list is the decoy a name-only guess could pick.
    assert edge_target(js_repo.db, "Help.names", "list") == ("lib/help.js", "Command.list", "inferred")


def test_js_static_and_instance_method_of_one_name(js_repo) -> None:  # type: ignore[no-untyped-def]
    rows = js_repo.db.rows(
        "SELECT s.start_line, t.start_line, e.resolution FROM edges e JOIN nodes s ON s.id = e.source_id "
        "JOIN nodes t ON t.id = e.target_id WHERE s.name IN ('parse', 'start') AND e.target_name = 'parse'"
    )
    # Lines 12 and 16 hold `static parse` and the instance parse: `c = new Command()` and `this` in an instance
    # method reach the instance one, `this` in a static method the static one.
    assert sorted(tuple(r) for r in rows) == [(12, 16, "inferred"), (16, 16, "same_file"), (19, 12, "same_file")]


def test_js_untyped_destructured_name_binds_nothing(js_repo) -> None:  # type: ignore[no-untyped-def]
    rows = js_repo.db.rows(
        "SELECT e.target_id FROM edges e JOIN nodes s ON s.id = e.source_id "
        "WHERE s.qualified_name = 'run' AND e.target_name = 'list'"
    )
    assert [r[0] for r in rows] == [None]  # ctx has no type: cmd could be anything


TS_MORE = {
    "src/gen.ts": (
        "export class CodeGen {\n  add(): void {}\n}\n\n"
        "export class Other {\n  add(): void {}\n}\n\n"
        "export class KeywordCxt {\n  readonly gen: CodeGen\n}\n\n"
        "export function each(xs: number[]): void\n"
        "export function each(xs: string[]): void\n"
        "export function each(xs: any): void {}\n"
    ),
    "src/use.ts": (
        "import { KeywordCxt, each } from './gen'\n\n"
        "export function code(cxt: KeywordCxt): void {\n  const { gen } = cxt\n  gen.add()\n  each([1])\n}\n"
    ),
}


@pytest.fixture
def ts_more(tmp_path: Path):  # type: ignore[no-untyped-def]
    svc = index_repo(make_plain_repo(tmp_path, TS_MORE))
    yield svc
    svc.close()


def test_ts_destructured_field_of_a_typed_parameter(ts_more) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(ts_more.db, "code", "add") == ("src/gen.ts", "CodeGen.add", "inferred")


def test_ts_overloads_bind_their_body(ts_more) -> None:  # type: ignore[no-untyped-def]
    rows = ts_more.db.rows(
        "SELECT t.start_line, e.resolution FROM edges e JOIN nodes s ON s.id = e.source_id "
        "JOIN nodes t ON t.id = e.target_id WHERE s.qualified_name = 'code' AND e.target_name = 'each'"
    )
    assert [tuple(r) for r in rows] == [(15, "import")]  # the implementation, after the two signatures


GO_MORE = {
    "go.mod": "module example.com/tree\n\ngo 1.19\n",
    "tree/node.go": (
        "package tree\n\n"
        "type Node interface {\n\tParent() Node\n\tAppend(c Node)\n}\n\n"
        "type Text struct{}\n\n"
        "func (t *Text) Parent() Node { return nil }\n\n"
        "func (t *Text) Append(c Node) {}\n\n"
        "func (t *Text) Soft() bool { return false }\n\n"
        "type Block struct{}\n\n"
        "func (b *Block) Soft() bool { return true }\n\n"
        "func (b *Block) Append(c Node) {}\n\n"
        "func Attach(parent Node, n Node) {\n"
        "\tparent.Append(n)\n"
        "\tn.Parent().Append(parent)\n"
        "\tt, ok := n.(*Text)\n"
        "\tif ok && t.Soft() {\n\t\treturn\n\t}\n"
        "}\n"
    ),
}


@pytest.fixture
def go_more(tmp_path: Path):  # type: ignore[no-untyped-def]
    svc = index_repo(make_plain_repo(tmp_path, GO_MORE))
    yield svc
    svc.close()


def _targets(svc, source: str, name: str) -> list[tuple[object, ...]]:  # type: ignore[no-untyped-def]
    rows = svc.db.rows(
        "SELECT t.qualified_name, e.resolution FROM edges e JOIN nodes s ON s.id = e.source_id "
        "LEFT JOIN nodes t ON t.id = e.target_id WHERE s.qualified_name = ? AND e.target_name = ? ORDER BY e.id",
        (source, name),
    )
    return [tuple(r) for r in rows]


def test_go_parameter_called_parent_is_a_plain_name(go_more) -> None:  # type: ignore[no-untyped-def]
    # `parent` is PHP's receiver word, not Go's; both Append calls are the interface's method.
    assert _targets(go_more, "Attach", "Append") == [("Node.Append", "inferred"), ("Node.Append", "inferred")]


def test_go_type_assertion_types_the_variable(go_more) -> None:  # type: ignore[no-untyped-def]
    assert _targets(go_more, "Attach", "Soft") == [("Text.Soft", "inferred")]  # never Block.Soft


def test_go_method_result_in_a_receiver_path(go_more) -> None:  # type: ignore[no-untyped-def]
    assert _targets(go_more, "Attach", "Parent") == [("Node.Parent", "inferred")]


# A package's default instance and the wrappers that call through it (viper's `var v *Viper`, logrus's
# `var std = New()`), with decoys: a Store of the same method names, a local and a parameter shadowing the globals.
GO_GLOBALS = {
    "go.mod": "module example.com/conf\n\ngo 1.19\n",
    "conf/conf.go": (
        "package conf\n\n"
        "type Conf struct{}\n\n"
        "type Store struct{}\n\n"
        "var v *Conf\n\n"
        "var std = New()\n\n"
        "func New() *Conf { return &Conf{} }\n\n"
        "func (c *Conf) Get(key string) string { return key }\n\n"
        "func (c *Conf) Log() {}\n\n"
        "func (s *Store) Get(key string) string { return key }\n\n"
        "func (s *Store) Log() {}\n\n"
        "func Get(key string) string { return v.Get(key) }\n\n"
        "func Log() { std.Log() }\n\n"
        'func Shadowed() {\n\tv := &Store{}\n\tv.Get("k")\n}\n\n'
        "func Param(std *Store) { std.Log() }\n"
    ),
    # Another file of the package has no `v` of its own: conf.go's is the package's.
    "conf/other.go": "package conf\n\nfunc Other() { v.Log() }\n",
    # A range's second name is an element of what it ranges over; its key, and a type switch's alias, are
    # unknown and shadow the package's `v` (a map's keys here are strings: no Log of the repository).
    "conf/loops.go": (
        "package conf\n\n"
        "type Reg struct {\n\titems map[string]*Store\n}\n\n"
        "func Each(xs []*Store) {\n\tfor _, v := range xs {\n\t\tv.Log()\n\t}\n}\n\n"
        'func Apply(opts ...*Store) {\n\tfor i, o := range opts {\n\t\to.Get("k")\n\t\t_ = i\n\t}\n}\n\n'
        "func Keys(m map[string]*Store) {\n\tfor v := range m {\n\t\tv.Log()\n\t}\n}\n\n"
        "func (r *Reg) Find(k string) {\n\ts := r.items[k]\n\ts.Get(k)\n}\n\n"
        "func Switch(x any) {\n\tswitch v := x.(type) {\n\tcase *Store:\n\t\tv.Log()\n\t}\n}\n"
    ),
    # A test file's variable is its own: the package's other files do not see it, it sees theirs.
    "conf/conf_test.go": 'package conf\n\nvar tv *Store\n\nfunc TestGet() { v.Get("k") }\n',
    "conf/uses.go": "package conf\n\nfunc UsesTest() { tv.Log() }\n",
    # Per-platform files declaring one name with different types: no file's type is the package's.
    "conf/plat_linux.go": "package conf\n\nvar plat *Conf\n",
    "conf/plat_windows.go": "package conf\n\nvar plat *Store\n",
    "conf/plat.go": "package conf\n\nfunc Plat() { plat.Log() }\n",
    # The second name of `a, b := f()` holds f's second result; a decoy Len keeps a name-only guess off.
    "conf/peek.go": (
        "package conf\n\n"
        "type Reader struct{}\n\ntype Segment struct{}\n\ntype Other struct{}\n\n"
        "func (r *Reader) PeekLine() ([]byte, *Segment) { return nil, nil }\n\n"
        "func Split() (*Other, *Segment, error) { return nil, nil, nil }\n\n"
        "func (s *Segment) Len() int { return 0 }\n\n"
        "func (o *Other) Len() int { return 1 }\n\n"
        "func Peek(r *Reader) {\n\tline, seg := r.PeekLine()\n\tseg.Len()\n\t_ = line\n}\n\n"
        "func Parts() {\n\thead, tail, _ := Split()\n\ttail.Len()\n\thead.Len()\n}\n"
    ),
}


# Go has no re-exports: `conf.Load` is conf's own (here a variable holding a function, which the index keeps no
# definition of), never the Load of a package conf imports; another Load elsewhere keeps a name-only guess off.
GO_NO_REEXPORT = {
    "go.mod": "module example.com/app\n\ngo 1.19\n",
    "conf/conf.go": (
        'package conf\n\nimport "example.com/app/files"\n\nvar Load func()\n\nfunc Read() { files.Load() }\n'
    ),
    "files/files.go": "package files\n\nfunc Load() {}\n",
    "extra/extra.go": "package extra\n\nfunc Load() {}\n",
    "cmd/main.go": 'package main\n\nimport "example.com/app/conf"\n\nfunc main() {\n\tconf.Load()\n\tconf.Read()\n}\n',
}


def test_go_packages_do_not_reexport_what_they_import(tmp_path: Path) -> None:
    with open_service(make_plain_repo(tmp_path, GO_NO_REEXPORT), index=True) as svc:
        assert _targets(svc, "main", "Read") == [("Read", "import")]
        assert _targets(svc, "Read", "Load") == [("Load", "import")]
        assert [target for target, _how in _targets(svc, "main", "Load")] == [None]


@pytest.fixture
def go_globals(tmp_path: Path):  # type: ignore[no-untyped-def]
    svc = index_repo(make_plain_repo(tmp_path, GO_GLOBALS))
    yield svc
    svc.close()


def test_go_package_variables_type_the_wrappers_receivers(go_globals) -> None:  # type: ignore[no-untyped-def]
    assert _targets(go_globals, "Get", "Get") == [("Conf.Get", "inferred")]  # `var v *Conf`
    assert _targets(go_globals, "Log", "Log") == [("Conf.Log", "inferred")]  # `var std = New()`
    # A local or a parameter of the same name is what the function means.
    assert _targets(go_globals, "Shadowed", "Get") == [("Store.Get", "inferred")]
    assert _targets(go_globals, "Param", "Log") == [("Store.Log", "inferred")]


def test_go_package_variables_of_another_file_type_its_receivers(go_globals) -> None:  # type: ignore[no-untyped-def]
    assert _targets(go_globals, "Other", "Log") == [("Conf.Log", "inferred")]
    assert _targets(go_globals, "TestGet", "Get") == [("Conf.Get", "inferred")]  # a test file sees the package
    # Conf.Log and Store.Log share the name: where no declaration is in view, no guess picks one.
    assert _targets(go_globals, "UsesTest", "Log") == [(None, "ambiguous")]
    assert _targets(go_globals, "Plat", "Log") == [(None, "ambiguous")]


def test_go_second_results_type_receivers(go_globals) -> None:  # type: ignore[no-untyped-def]
    assert _targets(go_globals, "Peek", "Len") == [("Segment.Len", "inferred")]
    assert _targets(go_globals, "Parts", "Len") == [("Segment.Len", "inferred"), ("Other.Len", "inferred")]


def test_go_range_and_index_elements_type_receivers(go_globals) -> None:  # type: ignore[no-untyped-def]
    assert _targets(go_globals, "Each", "Log") == [("Store.Log", "inferred")]  # []*Store
    assert _targets(go_globals, "Apply", "Get") == [("Store.Get", "inferred")]  # ...*Store
    assert _targets(go_globals, "Reg.Find", "Get") == [("Store.Get", "inferred")]  # a map field's value
    # A map's key and a type switch's alias shadow the package's `v`: never Conf.Log through it.
    assert _targets(go_globals, "Keys", "Log") == [(None, "ambiguous")]
    assert _targets(go_globals, "Switch", "Log") == [(None, "ambiguous")]


JS_MORE = {
    "lib/command.js": (
        "class Option {\n"
        "  default(v) {\n    this.value = v\n    return this\n  }\n"
        "  parse(x) { return x }\n"
        "}\n\n"
        "class Parser {\n  parse(x) { return x }\n}\n\n"
        "class Command {\n"
        "  createOption() {\n    return new Option()\n  }\n"
        "  add() {\n    const opt = this.createOption()\n    return opt.default(1).parse('x')\n  }\n"
        "}\n\n"
        "function mangle(text) { return text }\n\n"
        "function run(mangle, text) {\n  return mangle(text)\n}\n"
    ),
}


@pytest.fixture
def js_more(tmp_path: Path):  # type: ignore[no-untyped-def]
    svc = index_repo(make_plain_repo(tmp_path, JS_MORE))
    yield svc
    svc.close()


def test_js_factory_and_builder_results(js_more) -> None:  # type: ignore[no-untyped-def]
    # createOption returns `new Option()`, default returns `this`: parse is Option's, not Parser's.
    assert _targets(js_more, "Command.add", "default") == [("Option.default", "inferred")]
    assert _targets(js_more, "Command.add", "parse") == [("Option.parse", "inferred")]


def test_js_parameter_shadows_a_function_of_the_file(js_more) -> None:  # type: ignore[no-untyped-def]
    assert _targets(js_more, "run", "mangle") == [(None, "unresolved")]


TS_CXT = {
    "src/cxt.ts": (
        "export class CodeGen {\n  add(): void {}\n}\n\n"
        "export class Other {\n  add(): void {}\n}\n\n"
        "export interface SchemaCxt {\n  readonly gen: CodeGen\n}\n\n"
        "export function stringify(x: unknown): string { return '' }\n\n"
        "export function body({gen}: SchemaCxt): string {\n  gen.add()\n  return JSON.stringify(gen)\n}\n"
    ),
}


@pytest.fixture
def ts_cxt(tmp_path: Path):  # type: ignore[no-untyped-def]
    svc = index_repo(make_plain_repo(tmp_path, TS_CXT))
    yield svc
    svc.close()


def test_ts_typed_destructured_parameter_and_interface_field(ts_cxt) -> None:  # type: ignore[no-untyped-def]
    assert _targets(ts_cxt, "body", "add") == [("CodeGen.add", "inferred")]


def test_ts_member_of_a_global_object_is_external(ts_cxt) -> None:  # type: ignore[no-untyped-def]
    # The file's own stringify is no JSON.stringify.
    assert _targets(ts_cxt, "body", "stringify") == [(None, "external")]


JS_CHAINS = {
    "src/helpers.js": (
        "export function edit(regex) {\n"
        "  const obj = {\n"
        "    replace: (name, val) => {\n      regex = regex.replace(name, val)\n      return obj\n    },\n"
        "    getRegex: () => {\n      return new RegExp(regex)\n    }\n"
        "  }\n"
        "  return obj\n"
        "}\n\n"
        "export class Template {\n  replace(a, b) { return this }\n  getRegex() { return null }\n}\n"
    ),
    "src/rules.js": (
        "import { edit } from './helpers.js'\n\n"
        "export function build() {\n"
        "  return edit(/^(a(b/).replace('x', 'y(' /* ) */).replace(/z\\]/g, 'w').getRegex()\n"
        "}\n"
    ),
    "src/marked.js": (
        "export function marked(src) {\n  return marked.walkTokens(src)\n}\n\n"
        "marked.walkTokens = function (tokens) {\n  return marked.walkTokens(tokens.slice(1))\n}\n\n"
        "marked.other = function () {}\n\n"
        "export const walkTokens = marked.walkTokens\n\n"
        "const api = {\n  run() { return 1 }\n}\n\n"
        "export function go() {\n  api.run()\n  marked.missing()\n}\n"
    ),
    "src/decoys.js": (
        "export class Runner {\n  run() {}\n  walkTokens() {}\n  missing() {}\n}\n\n"
        "export class Help {\n  /**\n   * @param {Runner} runner\n   */\n\n"
        "  start(runner) {\n    runner.run()\n  }\n}\n\n"
        "export class Lexer {\n  static lex(src) {\n    return src\n  }\n  lex(src) {\n    return src\n  }\n}\n\n"
        "export function lexAll(src) {\n  const lexer = new Lexer()\n  return [Lexer.lex(src), lexer.lex(src)]\n}\n"
    ),
}


@pytest.fixture
def js_chains(tmp_path: Path):  # type: ignore[no-untyped-def]
    svc = index_repo(make_plain_repo(tmp_path, JS_CHAINS))
    yield svc
    svc.close()


def test_js_builder_chain_over_an_object_literal(js_chains) -> None:  # type: ignore[no-untyped-def]
    # edit returns obj, whose replace returns obj again; Template's methods of the same names are the decoys.
    # The regular expressions and strings in the arguments (unbalanced brackets, a comment) do not matter.
    assert _targets(js_chains, "build", "replace") == [("edit.obj.replace", "inferred")] * 2
    assert _targets(js_chains, "build", "getRegex") == [("edit.obj.getRegex", "inferred")]


def test_js_function_property_and_object_literal_members(js_chains) -> None:  # type: ignore[no-untyped-def]
    # `marked.walkTokens = function`: marked.walkTokens() is that function, not the constant re-exporting it
    # nor Runner.walkTokens; `const api = { run() {} }`: api.run() is its run, not Runner.run.
    assert _targets(js_chains, "marked", "walkTokens") == [("marked.walkTokens", "inferred")]
    assert _targets(js_chains, "marked.walkTokens", "walkTokens") == [("marked.walkTokens", "inferred")]
    assert _targets(js_chains, "go", "run") == [("api.run", "inferred")]


def test_js_member_a_function_does_not_hold_is_not_invented(js_chains) -> None:  # type: ignore[no-untyped-def]
    # marked has no `missing` property: the call stays unbound (Runner.missing is a candidate, not a target).
    [(target, resolution)] = _targets(js_chains, "go", "missing")
    assert target is None and resolution == "ambiguous"


def test_js_static_through_the_class_instance_through_an_object(js_chains) -> None:  # type: ignore[no-untyped-def]
    rows = js_chains.db.rows(
        "SELECT t.start_line, e.resolution FROM edges e JOIN nodes s ON s.id = e.source_id "
        "JOIN nodes t ON t.id = e.target_id WHERE s.name = 'lexAll' AND e.target_name = 'lex' ORDER BY e.id"
    )
    assert [tuple(r) for r in rows] == [(18, "inferred"), (21, "inferred")]  # static lex, then the instance's


def test_js_jsdoc_set_off_by_a_blank_line(js_chains) -> None:  # type: ignore[no-untyped-def]
    assert _targets(js_chains, "Help.start", "run") == [("Runner.run", "inferred")]


JAVA_FILES = {
    "src/p/Gen.java": "package p;\n\npublic class Gen {\n  public void add() {}\n}\n",
    "src/p/Other.java": (
        "package p;\n\npublic class Other {\n  public void add() {}\n  void fail() {}\n  void setup() {}\n}\n"
    ),
    "src/p/Base.java": "package p;\n\npublic class Base {\n  void setup() {}\n}\n",
    "src/p/Child.java": (
        "package p;\n\npublic class Child extends Base {\n  private Other other;\n\n"
        "  void go() {\n    setup();\n    other.add();\n  }\n\n"
        "  void walk(int depth) {\n    walk();\n  }\n\n  void walk() {}\n\n"
        "  Other pick() {\n    return other;\n  }\n\n  Base pick(int i) {\n    return this;\n  }\n\n"
        "  void use() {\n    pick().setup();\n  }\n\n"
        "  Child() {}\n\n  Child(int size) {}\n\n  Child copy() {\n    return new Child();\n  }\n}\n"
    ),
    "src/p/Use.java": (
        "package p;\n\n"
        "import java.util.List;\n"
        "import static org.junit.Assert.fail;\n\n"
        "public class Use {\n"
        "  private Gen gen;\n\n"
        "  Gen make() { return new Gen(); }\n\n"
        "  void run(Gen g, List<String> xs) {\n"
        '    g.add();\n    this.gen.add();\n    make().add();\n    xs.add("x");\n'
        "    Other o = new Other();\n    o.add();\n"
        "    fail();\n"
        "  }\n\n"
        "  void check(Other parent) {\n    parent.add();\n  }\n"
        "}\n"
    ),
}


@pytest.fixture
def java_repo(tmp_path: Path):  # type: ignore[no-untyped-def]
    svc = index_repo(make_plain_repo(tmp_path, JAVA_FILES))
    yield svc
    svc.close()


def test_java_parameters_fields_locals_and_results_type_receivers(java_repo) -> None:  # type: ignore[no-untyped-def]
    # Gen.add and Other.add share a name: only the stated types tell them apart; List is java.util's.
    assert _targets(java_repo, "Use.run", "add") == [
        ("Gen.add", "inferred"),
        ("Gen.add", "inferred"),
        ("Gen.add", "inferred"),
        (None, "external"),
        ("Other.add", "inferred"),
    ]


def test_java_parent_is_a_plain_name(java_repo) -> None:  # type: ignore[no-untyped-def]
    assert _targets(java_repo, "Use.check", "add") == [("Other.add", "inferred")]


def test_java_static_import_from_a_library_binds_nothing(java_repo) -> None:  # type: ignore[no-untyped-def]
    # org.junit's fail, not the package's Other.fail a same-directory guess would pick.
    assert _targets(java_repo, "Use.run", "fail") == [(None, "external")]


def test_java_bare_call_is_an_inherited_method_and_bare_name_a_field(java_repo) -> None:  # type: ignore[no-untyped-def]
    # Other.setup is the decoy a same-directory guess could pick; `other` is Child's field, read without `this.`.
    assert _targets(java_repo, "Child.go", "setup") == [("Base.setup", "inferred")]
    assert _targets(java_repo, "Child.go", "add") == [("Other.add", "inferred")]


def test_java_overload_calling_its_sibling_binds_by_argument_count(java_repo) -> None:  # type: ignore[no-untyped-def]
    # walk(int) calls walk(): no argument fits walk() only (not "the other walk" of two: the count chooses).
    assert _targets(java_repo, "Child.walk", "walk") == [("Child.walk", "inferred")]
    line = java_repo.db.rows(
        "SELECT t.start_line FROM edges e JOIN nodes t ON t.id = e.target_id "
        "WHERE e.target_name = 'walk' AND e.kind = 'calls'"
    )
    assert line == [(15,)]  # `void walk() {}`, not walk(int) on line 11
    # pick() in a receiver path is one of two overloads stating different results, its arguments uncounted there: its
    # result is unknown, not a library's (no "external"). (Overloads that all state one result type that type.)
    assert _targets(java_repo, "Child.use", "setup") == [(None, "ambiguous")]
    # `new Child()` names the class (as javac's answer is read), not one of its two constructors.
    assert edge_target(java_repo.db, "Child.copy", "Child") == ("src/p/Child.java", "Child", "same_file")


@pytest.mark.parametrize(
    ("text", "element"),
    [
        ("[]*Store", "*Store"),
        ("[4]Point", "Point"),
        ("...Option", "Option"),
        ("map[string]FlagValue", "FlagValue"),
        ("map[Key][]*Item", "[]*Item"),
        ("<-chan Event", "Event"),
        ("chan *Job", "*Job"),
        ("Store", None),
        ("[]", None),
        ("map[string]", None),
        ("func() Store", None),
    ],
)
def test_go_element_type(text: str, element: str | None) -> None:
    assert go_element_type(text) == element


# A default import binds what the file exports as its default, whatever the importer names it; decoys of the same
# names elsewhere keep a name-only guess off.
TS_DEFAULT = {
    "src/core.ts": "export default class Base {\n  run(): void {}\n}\n",
    "src/make.ts": "export default function makeThing(): number {\n  return 1\n}\n",
    "src/app.ts": (
        'import Core from "./core"\n'
        'import mk from "./make"\n\n'
        "export class App extends Core {\n"
        "  run(): void {\n    super.run()\n  }\n"
        "  start(): void {\n    const c = new Core()\n    c.run()\n    mk()\n  }\n"
        "}\n"
    ),
    # A function outside a class that states what `this` is (`this: Core`, itself a default import).
    "src/compile.ts": (
        'import type Core from "./core"\n\nexport function compile(this: Core): void {\n  this.run()\n}\n'
    ),
    "src/other.ts": (
        "export class Runner {\n  run(): void {}\n}\n\nexport function makeThing(): number {\n  return 2\n}\n"
    ),
}


@pytest.fixture
def ts_default(tmp_path: Path):  # type: ignore[no-untyped-def]
    svc = index_repo(make_plain_repo(tmp_path, TS_DEFAULT))
    yield svc
    svc.close()


def test_ts_default_import_binds_the_default_export_under_any_local_name(ts_default) -> None:  # type: ignore[no-untyped-def]
    assert _targets(ts_default, "App.run", "run") == [("Base.run", "inferred")]  # super.run() through Core
    assert _targets(ts_default, "App.start", "run") == [("Base.run", "inferred")]  # new Core()
    assert _targets(ts_default, "App.start", "mk") == [("makeThing", "import")]


def test_ts_this_parameter_types_this_outside_a_class(ts_default) -> None:  # type: ignore[no-untyped-def]
    assert _targets(ts_default, "compile", "run") == [("Base.run", "inferred")]


# A bare `f()` in TypeScript and Go names a function, never a method: immer's `has(x)` inside a file whose proxy
# traps object has a `has` method is the helper it imports (here through a barrel), or the one function nearby.
BARE_CALLS = {
    "src/common.ts": "export function has(x: object, k: string): boolean {\n  return k in x\n}\n",
    "src/internal.ts": 'export * from "./common"\nexport * from "./proxy"\n',
    "src/proxy.ts": (
        'import { has } from "./internal"\n\n'
        "export const traps = {\n  has(state: object, k: string): boolean {\n    return has(state, k)\n  },\n}\n"
    ),
    "src/plugin.ts": "export class Store {\n  get(k: string): string {\n    return k\n  }\n}\n",
    "src/use.ts": "export function get(k: string): string {\n  return k\n}\n",
    "src/patches.ts": 'import { get } from "./use"\n\nexport function apply(k: string): string {\n  return get(k)\n}\n',
    "go/m/m.go": (
        "package m\n\ntype T struct{}\n\nfunc (t *T) Close() {}\n\nfunc Close() {}\n\nfunc Run() { Close() }\n"
    ),
    # `unicode.IsPunct` is the standard library's (an import of no file here), not the package's own IsPunct.
    "go/m/util.go": (
        'package m\n\nimport "unicode"\n\nfunc IsPunct(r rune) bool { return r == 0 }\n\n'
        "func Check(r rune) bool { return unicode.IsPunct(r) }\n"
    ),
}


@pytest.fixture
def bare_calls(tmp_path: Path):  # type: ignore[no-untyped-def]
    svc = index_repo(make_plain_repo(tmp_path, BARE_CALLS))
    yield svc
    svc.close()


def test_a_bare_call_names_no_method_in_typescript_and_go(bare_calls) -> None:  # type: ignore[no-untyped-def]
    assert _targets(bare_calls, "traps.has", "has") == [("has", "import")]
    assert _targets(bare_calls, "apply", "get") == [("get", "import")]
    assert _targets(bare_calls, "Run", "Close") == [("Close", "same_file")]


def test_a_go_library_package_call_is_external(bare_calls) -> None:  # type: ignore[no-untyped-def]
    assert _targets(bare_calls, "Check", "IsPunct") == [(None, "external")]
