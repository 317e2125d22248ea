; TypeScript additions to javascript.scm (also used by TSX).

; --- definitions
(interface_declaration name: (_) @name) @definition.interface

(type_alias_declaration name: (_) @name) @definition.type

(enum_declaration name: (_) @name) @definition.enum

(abstract_class_declaration name: (_) @name) @definition.class

(internal_module name: [(identifier) (nested_identifier)] @name) @definition.namespace

(module name: [(identifier) (nested_identifier)] @name) @definition.namespace

(module name: (string (string_fragment) @name)) @definition.namespace

(public_field_definition name: (_) @name value: (class)) @definition.class

(public_field_definition
  name: (_) @name
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method

;; declarations: overload and ambient signatures, interface and abstract members (implemented elsewhere)
(function_signature name: (identifier) @name) @definition.function @declaration

(method_signature name: (_) @name) @definition.method @declaration

(construct_signature "new" @name) @definition.method @declaration

(abstract_method_signature name: (_) @name) @definition.method @declaration

; `declare class A { ... }`: the class is only described here (its methods are method_signatures)
(ambient_declaration (class_declaration name: (_) @name) @definition.class @declaration)

; --- inheritance
(class_heritage
  (extends_clause
    value: [(identifier) @name
            (member_expression object: (_) @qualifier property: (_) @name)])) @reference.inherits

(implements_clause
  [(type_identifier) @name
   (nested_type_identifier module: (_) @qualifier name: (_) @name)
   (generic_type name: [(type_identifier) @name
                        (nested_type_identifier module: (_) @qualifier name: (_) @name)])]) @reference.implements

(extends_type_clause
  type: [(type_identifier) @name
         (nested_type_identifier module: (_) @qualifier name: (_) @name)
         (generic_type name: [(type_identifier) @name
                              (nested_type_identifier module: (_) @qualifier name: (_) @name)])]) @reference.inherits

; --- type references
(type_annotation (type_identifier) @name) @reference.type
(type_annotation (generic_type name: (type_identifier) @name)) @reference.type
(type_arguments (type_identifier) @name) @reference.type
(type_annotation (nested_type_identifier module: (_) @qualifier name: (_) @name)) @reference.type

; --- imports: `import fs = require('fs')`
(import_statement
  (import_require_clause (identifier) @import.alias source: (string) @import.module)) @import

; --- facts for typing receivers (index/receivers.py): annotated parameters, variables and class fields; a
; constructor's parameter properties (`private gen: CodeGen` is this.gen); return annotations
(required_parameter pattern: (identifier) @fact.name type: (type_annotation (_) @fact.type)) @fact

(optional_parameter pattern: (identifier) @fact.name type: (type_annotation (_) @fact.type)) @fact

; `function compile(this: Ajv, ...)`: what `this` is in a function outside a class (a fact named "this")
(required_parameter pattern: (this) @fact.name type: (type_annotation (_) @fact.type)) @fact

(required_parameter pattern: (identifier) @fact.name !type) @fact

(variable_declarator name: (identifier) @fact.name type: (type_annotation (_) @fact.type)) @fact

(public_field_definition name: (property_identifier) @fact.name type: (type_annotation (_) @fact.type)) @fact

(property_signature name: (property_identifier) @fact.name type: (type_annotation (_) @fact.type)) @fact

; `function f({gen, opts}: SchemaCxt)`: each name is that field of a SchemaCxt (receivers.py reads the text)
(required_parameter
  pattern: (object_pattern (shorthand_property_identifier_pattern) @fact.name)
  type: (type_annotation)) @fact @fact.value

(required_parameter
  (accessibility_modifier)
  pattern: (identifier) @fact.name
  type: (type_annotation (_) @fact.type)) @fact.attr

(function_declaration return_type: (type_annotation (_) @fact.type)) @fact.return

(method_definition return_type: (type_annotation (_) @fact.type)) @fact.return

(method_signature return_type: (type_annotation (_) @fact.type)) @fact.return

(function_signature return_type: (type_annotation (_) @fact.type)) @fact.return

; `export default abstract class Base`: as `export default class` (javascript.scm)
(export_statement "default" @fact.name declaration: (abstract_class_declaration name: (_) @fact.value)) @fact
