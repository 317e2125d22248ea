; Scala: classes, objects, traits, enums, functions (declarations in traits are methods), type aliases.
(class_definition name: (identifier) @name) @definition.class
(object_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.trait
(enum_definition name: (identifier) @name) @definition.enum
; operator methods (`def ++(that: ...)`) are named by an operator_identifier
(function_definition name: [(identifier) (operator_identifier)] @name) @definition.function
(function_declaration name: [(identifier) (operator_identifier)] @name) @definition.method
(type_definition name: (type_identifier) @name) @definition.type

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression value: (_) @qualifier field: (identifier) @name)) @reference.call
(instance_expression (type_identifier) @name) @reference.call

(extends_clause (type_identifier) @name) @reference.inherits
(extends_clause (generic_type (type_identifier) @name)) @reference.inherits

; `import a.b.C` binds C (the module a.b.C); `import a.b.{C, D => E}` binds members of a.b. The path is
; captured as its first and last identifiers; the module text spans them.
(import_declaration . (identifier) @import.module (identifier)* @import.module .) @import
(import_declaration
  . (identifier) @import.module (identifier)* @import.module
  . (namespace_selectors (identifier) @import.name)) @import
(import_declaration
  . (identifier) @import.module (identifier)* @import.module
  . (namespace_selectors (arrow_renamed_identifier name: (_) @import.name alias: (_) @import.alias))) @import
