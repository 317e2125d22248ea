; C definitions, references and includes (capture names: see briefs/parse_convention.md).

; ---------------------------------------------------------------- definitions

; Function definitions; the name sits under zero, one or two pointer declarators
; (`int f()`, `char *f()`, `char **f()`). Prototypes (no body) are declarations, linked to their definitions.
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function

; File-scope prototypes (also inside include guards and #if blocks); never ones inside a function body.
(translation_unit (declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
  ]) @definition.function @declaration)
(preproc_ifdef (declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
  ]) @definition.function @declaration)
(preproc_if (declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
  ]) @definition.function @declaration)
(preproc_else (declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
  ]) @definition.function @declaration)

; struct/union/enum with a body. The parents are listed so that a specifier inside a
; `typedef` is not matched here: the typedef pattern below names it by its alias instead.
(translation_unit (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(translation_unit (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(translation_unit (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_ifdef (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_ifdef (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_ifdef (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_if (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_if (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_if (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_else (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_else (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(declaration type: (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(declaration type: (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(declaration type: (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(field_declaration type: (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(field_declaration type: (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(field_declaration type: (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)

; `typedef struct [tag] { ... } Name;` is the struct, known by its typedef name.
(type_definition
  type: (struct_specifier body: (_))
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (union_specifier body: (_))
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (enum_specifier body: (_))
  declarator: (type_identifier) @name) @definition.enum

; Other typedefs are type aliases: plain, pointer and function-pointer forms.
(type_definition
  type: [
    (primitive_type)
    (type_identifier)
    (sized_type_specifier)
    (struct_specifier !body)
    (union_specifier !body)
    (enum_specifier !body)
  ]
  declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator declarator: (type_identifier) @name)))) @definition.type

; Object-like macros with a value are constants (include guards have none);
; function-like macros are called like functions.
(preproc_def name: (identifier) @name value: (_)) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.function

; File-scope `const` variables.
((translation_unit
  (declaration
    (type_qualifier) @_qualifier
    declarator: (init_declarator declarator: (identifier) @name)) @definition.constant)
  (#eq? @_qualifier "const"))

; ---------------------------------------------------------------- calls

(call_expression function: (identifier) @name) @reference.call
; `obj.fn()`, `p->ops->run()`: a call through a struct member.
(call_expression
  function: (field_expression argument: (_) @qualifier field: (field_identifier) @name)) @reference.call

; ---------------------------------------------------------------- type references

(parameter_declaration type: (type_identifier) @name @reference.type)
(parameter_declaration type: (struct_specifier name: (type_identifier) @name @reference.type))
(field_declaration type: (type_identifier) @name @reference.type)
(field_declaration type: (struct_specifier name: (type_identifier) @name @reference.type !body))
(function_definition type: (type_identifier) @name @reference.type)
(function_definition type: (struct_specifier name: (type_identifier) @name @reference.type))

; ---------------------------------------------------------------- includes

(preproc_include path: (string_literal (string_content) @import.module)) @import
(preproc_include path: (system_lib_string) @import.module) @import
