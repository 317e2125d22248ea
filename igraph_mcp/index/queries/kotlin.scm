; Kotlin definitions, references and imports (capture names: see briefs/parse_convention.md).
; The Kotlin grammar has almost no fields, so bodies are captured as @body for signatures.

; ---------------------------------------------------------------- definitions

; `class`, `data class`, `sealed class`... but not `enum class` (its own kind below). The
; regex only reads the header: it stops at the first `{`, `(`, `:` or `=`.
((class_declaration "class" (type_identifier) @name (class_body)? @body) @definition.class
  (#not-match? @definition.class "^[^{(:=]*\\benum\\s+class\\b"))
(class_declaration "interface" (type_identifier) @name (class_body)? @body) @definition.interface
(class_declaration (type_identifier) @name (enum_class_body) @body) @definition.enum
(object_declaration (type_identifier) @name (class_body)? @body) @definition.class
; A companion object is not a symbol: its members read as members of the enclosing class
; (`Circle.create()`), which is how callers name them.

; Extension functions `fun Foo.bar()` are qualified by their receiver type: "Foo.bar".
; These precede the plain pattern so that they win for the same name.
(function_declaration
  receiver: (receiver_type [
    (user_type (type_identifier) @receiver)
    (nullable_type (user_type (type_identifier) @receiver))
  ])
  (simple_identifier) @name
  (function_body)? @body) @definition.function
(function_declaration (simple_identifier) @name (function_body)? @body) @definition.function

((property_declaration
  (modifiers (property_modifier) @_const)
  (variable_declaration (simple_identifier) @name)) @definition.constant
  (#eq? @_const "const"))
(type_alias (type_identifier) @name) @definition.type

; ---------------------------------------------------------------- inheritance

; A supertype with a constructor call `Base(1)` is the superclass; the others are
; interfaces (Kotlin syntax cannot tell an interface's super-interface apart).
(delegation_specifier
  (constructor_invocation (user_type (type_identifier) @name .))) @reference.inherits
(delegation_specifier
  (constructor_invocation (user_type (type_identifier) @name . (type_arguments) .))) @reference.inherits
(delegation_specifier (user_type (type_identifier) @name .)) @reference.implements
(delegation_specifier (user_type (type_identifier) @name . (type_arguments) .)) @reference.implements
(delegation_specifier
  (explicit_delegation (user_type (type_identifier) @name .))) @reference.implements

; ---------------------------------------------------------------- calls

; `foo()`, `Circle(1.0)` (a constructor call), `obj.run()`, `this.area()`, `a.b.C.calc()`.
(call_expression (simple_identifier) @name) @reference.call
(call_expression
  (navigation_expression . (_) @qualifier (navigation_suffix (simple_identifier) @name))) @reference.call

; ---------------------------------------------------------------- type references

(parameter (user_type (type_identifier) @name @reference.type))
(class_parameter (user_type (type_identifier) @name @reference.type))

; ---------------------------------------------------------------- imports

; `import a.b.C` -> module "a.b", name "C" (parse.py cuts a name found inside the module
; capture off its end); `import a.b.C as D`; `import a.b.*` -> module "a.b".
; The grammar attaches comments that follow an import to its import_header, so the
; patterns cannot anchor on the header's last child; the regex skips wildcard imports.
((import_header
  (identifier (simple_identifier) @import.name .) @import.module
  (import_alias (type_identifier) @import.alias)?) @import
  (#not-match? @import "^import[^\\n]*\\.\\s*\\*"))
(import_header (identifier) @import.module (wildcard_import)) @import
