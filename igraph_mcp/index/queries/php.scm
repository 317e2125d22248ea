; PHP definitions, references and imports (capture names: see briefs/parse_convention.md).

; ---------------------------------------------------------------- definitions

(namespace_definition name: (namespace_name) @name body: (_)) @definition.namespace
; `namespace A\B;` has no body: @open makes it enclose what follows, up to the next namespace.
(namespace_definition name: (namespace_name) @name !body) @definition.namespace @open
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.function

; `const LIMIT = 5;` (file or class level) and `define('LIMIT', 5);`
(const_declaration (const_element (name) @name)) @definition.constant
((expression_statement
  (function_call_expression
    function: (name) @_define
    arguments: (arguments . (argument (string (string_content) @name))))) @definition.constant
  (#eq? @_define "define"))

; ---------------------------------------------------------------- inheritance

; A qualified name's leading `\` is anonymous, so `. (name)` matches `Foo` and `\Foo` only;
; `\A\B\Foo` goes through the namespace_name pattern (qualifier "A\B").
(base_clause (name) @name @reference.inherits)
(base_clause (qualified_name . (name) @name) @reference.inherits)
(base_clause (qualified_name (namespace_name) @qualifier (name) @name) @reference.inherits)
(class_interface_clause (name) @name @reference.implements)
(class_interface_clause (qualified_name . (name) @name) @reference.implements)
(class_interface_clause (qualified_name (namespace_name) @qualifier (name) @name) @reference.implements)

; `use SomeTrait;` inside a class body mixes the trait in.
(declaration_list (use_declaration (name) @name @reference.implements))
(declaration_list
  (use_declaration (qualified_name (namespace_name) @qualifier (name) @name) @reference.implements))

; ---------------------------------------------------------------- calls

((function_call_expression function: (name) @name) @reference.call
  (#not-eq? @name "define"))
(function_call_expression
  function: (qualified_name (namespace_name) @qualifier (name) @name)) @reference.call
(member_call_expression object: (_) @qualifier name: (name) @name) @reference.call
(nullsafe_member_call_expression object: (_) @qualifier name: (name) @name) @reference.call
(scoped_call_expression scope: (_) @qualifier name: (name) @name) @reference.call

; `new Foo(...)` is a call to Foo; `new static` / `new self` name no class.
((object_creation_expression (name) @name) @reference.call
  (#not-match? @name "^(static|self|parent)$"))
(object_creation_expression (qualified_name . (name) @name)) @reference.call
(object_creation_expression (qualified_name (namespace_name) @qualifier (name) @name)) @reference.call

; ---------------------------------------------------------------- type references

(simple_parameter type: (named_type (name) @name @reference.type))
(simple_parameter type: (named_type (qualified_name (namespace_name) @qualifier (name) @name) @reference.type))
((method_declaration return_type: (named_type (name) @name @reference.type))
  (#not-match? @name "^(static|self|parent)$"))
(function_definition return_type: (named_type (name) @name @reference.type))

; ---------------------------------------------------------------- imports

; use A\B\C;   use A\B\C as D;   use function A\f;   use Single;
(namespace_use_declaration
  (namespace_use_clause
    (qualified_name (namespace_name) @import.module (name) @import.name)
    !alias)) @import
(namespace_use_declaration
  (namespace_use_clause
    (qualified_name (namespace_name) @import.module (name) @import.name)
    alias: (name) @import.alias)) @import
(namespace_use_declaration (namespace_use_clause . (name) @import.module !alias)) @import
(namespace_use_declaration
  (namespace_use_clause . (name) @import.module alias: (name) @import.alias)) @import

; use A\B\{C, D as E};
(namespace_use_declaration
  (namespace_name) @import.module
  body: (namespace_use_group (namespace_use_clause . (name) @import.name !alias))) @import
(namespace_use_declaration
  (namespace_name) @import.module
  body: (namespace_use_group
    (namespace_use_clause . (name) @import.name alias: (name) @import.alias))) @import

; require 'x.php' and friends, when the path is a plain string literal.
(require_expression (string (string_content) @import.module)) @import
(require_once_expression (string (string_content) @import.module)) @import
(include_expression (string (string_content) @import.module)) @import
(include_once_expression (string (string_content) @import.module)) @import
(require_expression (encapsed_string (string_content) @import.module)) @import
(require_once_expression (encapsed_string (string_content) @import.module)) @import
(include_expression (encapsed_string (string_content) @import.module)) @import
(include_once_expression (encapsed_string (string_content) @import.module)) @import
