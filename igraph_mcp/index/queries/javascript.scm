; ECMAScript patterns shared by JavaScript, TypeScript and TSX (every pattern must compile in all three).
; Earlier patterns choose the kind when several name the same identifier.

; --- definitions
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function body: (_) @body)
          (function_expression body: (_) @body)
          (generator_function body: (_) @body)]) @definition.function

(variable_declarator name: (identifier) @name value: (class)) @definition.class

(class_declaration name: (_) @name) @definition.class

(function_declaration name: (identifier) @name) @definition.function

(generator_function_declaration name: (identifier) @name) @definition.function

(method_definition name: (_) @name) @definition.method

; class fields holding a class or a function (JavaScript field_definition; TypeScript: typescript.scm)
(class_body
  (_ property: (_) @name value: (class)) @definition.class)

(class_body
  (_
    property: (_) @name
    value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method)

;; assignment-style definitions (CommonJS and prototype code): the property is the name a reader uses.
; `View.prototype.lookup = function` -> View.lookup
(assignment_expression
  left: (member_expression
    object: (member_expression object: (_) @receiver property: (property_identifier) @_proto)
    property: (property_identifier) @name)
  right: [(function_expression body: (_) @body) (arrow_function body: (_) @body)
          (generator_function body: (_) @body)]
  (#eq? @_proto "prototype")) @definition.function

; `exports.x = function`, `module.exports.x = function`: a top-level function of the module.
(assignment_expression
  left: (member_expression object: (_) @_exports property: (property_identifier) @name)
  right: [(function_expression body: (_) @body) (arrow_function body: (_) @body)
          (generator_function body: (_) @body)]
  (#match? @_exports "^(module[.])?exports$")) @definition.function

; `app.render = function render`, `res.send = function`: a method of that object.
(assignment_expression
  left: (member_expression object: (_) @receiver property: (property_identifier) @name)
  right: [(function_expression body: (_) @body) (arrow_function body: (_) @body)
          (generator_function body: (_) @body)]
  (#not-match? @receiver "(^this$|^module$|^(module[.])?exports$|[.]prototype$)")) @definition.function

; `module.exports = function query()` is named by its function; an anonymous one by `exports`.
(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: [(function_expression name: (identifier) @name body: (_) @body)
          (generator_function name: (identifier) @name body: (_) @body)]
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @definition.function

(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @name)
  right: [(function_expression !name body: (_) @body) (arrow_function body: (_) @body)]
  (#eq? @_module "module")
  (#eq? @name "exports")) @definition.function

; named function expressions passed as arguments or returned: `router.use(path, function mounted_app() {})`
(arguments (function_expression name: (identifier) @name body: (_) @body) @definition.function)
(return_statement (function_expression name: (identifier) @name body: (_) @body) @definition.function)

; object literals of functions: `{ a() {}, b: function () {}, c: () => {} }` (methods: see method_definition);
; `const api = { ... }` qualifies its members as api.a, `module.exports = { ... }` leaves them top-level.
(pair
  key: [(property_identifier) @name (string (string_fragment) @name)]
  value: [(function_expression body: (_) @body) (arrow_function body: (_) @body)
          (generator_function body: (_) @body)]) @definition.function

(variable_declarator name: (identifier) @name value: (object)) @scope

(program
  (export_statement
    declaration: (lexical_declaration
      kind: "const"
      (variable_declarator name: (identifier) @name) @definition.constant)))

; --- what the module exports (ES modules and CommonJS)
(export_statement) @export

(export_specifier name: (identifier) @export.name)

; `module.exports = function ...` / `= { a() {} }`: everything defined in the assignment is exported
(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: [(function_expression) (arrow_function) (generator_function) (object) (class)]
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @export

(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: [(identifier) @export.name (object (shorthand_property_identifier) @export.name)]
  (#eq? @_module "module")
  (#eq? @_exports "exports"))

(assignment_expression
  left: (member_expression object: (identifier) @_exports property: (property_identifier) @export.name)
  (#eq? @_exports "exports"))

(assignment_expression
  left: (member_expression
    object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    property: (property_identifier) @export.name)
  (#eq? @_module "module")
  (#eq? @_exports "exports"))

; --- calls (`new Foo()` counts as a call to Foo)
(call_expression function: (identifier) @name) @reference.call

(call_expression
  function: (member_expression object: (_) @qualifier property: (_) @name)) @reference.call

(new_expression constructor: (identifier) @name) @reference.call

(new_expression
  constructor: (member_expression object: (_) @qualifier property: (_) @name)) @reference.call

; --- imports
(import_statement
  (import_clause (identifier) @import.default)
  source: (string) @import.module) @import

(import_statement
  (import_clause
    (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (string) @import.module) @import

(import_statement
  (import_clause (namespace_import (identifier) @import.alias))
  source: (string) @import.module) @import

; side-effect import `import './polyfill'`; bare duplicates of the forms above are dropped
(import_statement source: (string) @import.module) @import

(export_statement
  (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias))
  source: (string) @import.module) @import

(export_statement source: (string) @import.module) @import

(call_expression
  function: (import)
  arguments: (arguments . (string) @import.module)) @import

(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @import.module))
  (#eq? @_require "require")) @import

(variable_declarator
  name: (object_pattern
    [(shorthand_property_identifier_pattern) @import.name
     (pair_pattern key: (_) @import.name value: (identifier) @import.alias)])
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @import.module))
  (#eq? @_require "require")) @import

; --- inheritance. JavaScript: `class A extends B`; TypeScript wraps the base in extends_clause (see
; typescript.scm), so these stay generic enough to compile there and the regex rejects the clause.
(class_heritage
  (_) @name
  (#match? @name "^[A-Za-z_$][A-Za-z0-9_$]*$")) @reference.inherits

(class_heritage
  (_ object: (_) @qualifier property: (_) @name)) @reference.inherits

; --- facts for typing receivers (index/receivers.py): `const x = new T()` (x is a T) and what else a variable
; holds (it shadows outer names), plain parameters, `this.x = new T()`
(variable_declarator name: (identifier) @fact.name value: (new_expression constructor: (_) @fact.type)) @fact

(variable_declarator name: (identifier) @fact.name value: (_) @fact.value) @fact

; `const {gen, it} = cxt`: each name is that field of cxt (receivers.py reads the declarator's text)
(lexical_declaration
  (variable_declarator
    name: (object_pattern (shorthand_property_identifier_pattern) @fact.name)
    value: [(identifier) (this) (member_expression)]) @fact.value) @fact

(variable_declaration
  (variable_declarator
    name: (object_pattern (shorthand_property_identifier_pattern) @fact.name)
    value: [(identifier) (this) (member_expression)]) @fact.value) @fact

; (a bare name: TypeScript wraps parameters in required_parameter, so the regex keeps the pattern compiling there)
(formal_parameters (_) @fact.name (#match? @fact.name "^[A-Za-z_$][A-Za-z0-9_$]*$")) @fact

(assignment_expression
  left: (member_expression object: (this) property: (property_identifier) @fact.name)
  right: (new_expression constructor: (_) @fact.type)) @fact.attr

; `return new T(...)`: the function gives a T (its "()" fact, as a return annotation would)
(return_statement (new_expression constructor: (identifier) @fact.type)) @fact.return

; `return this`: a builder method gives its own class (receivers.py reads the type "this")
(return_statement (this) @fact.type) @fact.return

; `return obj`: the function gives what obj holds (an object literal of methods, a `new T()`)
(return_statement (identifier) @fact.value) @fact.return

; `export default class Ajv`: a fact named "default" (a reserved word, never a variable) holds the name a default
; import of the file binds, whatever the importer calls it (`import AjvCore from "./core"`)
(export_statement
  "default" @fact.name
  declaration: [(class_declaration name: (_) @fact.value) (function_declaration name: (_) @fact.value)]) @fact

(export_statement "default" @fact.name value: (identifier) @fact.value) @fact

; `static parse() {}`: a fact named "static" (a reserved word, never a variable) marks a static method, so `this.f()`
; and `x.f()` tell it from an instance method of the same name
(method_definition "static" @fact.name) @fact
