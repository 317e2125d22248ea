; Rust definitions, references and imports (capture names: see briefs/parse_convention.md).

; ---------------------------------------------------------------- definitions

(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type

; Free functions, methods in impl/trait bodies, and bodiless trait method signatures.
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function @declaration

; macro_rules! definitions are callable by name, so index them like functions.
(macro_definition name: (identifier) @name) @definition.function

; Item-level constants and statics only (a `const` inside a fn body is a local).
(source_file (const_item name: (identifier) @name) @definition.constant)
(source_file (static_item name: (identifier) @name) @definition.constant)
(declaration_list (const_item name: (identifier) @name) @definition.constant)
(declaration_list (static_item name: (identifier) @name) @definition.constant)

; An inline module is a namespace; `mod foo;` (no body) pulls in another file: an import.
(mod_item name: (identifier) @name body: (declaration_list)) @definition.namespace

; `impl Foo { fn bar }` -> "Foo.bar": the impl block is a qualifier scope named by its self type.
(impl_item type: (type_identifier) @name) @scope
(impl_item type: (generic_type type: (type_identifier) @name)) @scope
(impl_item type: (scoped_type_identifier name: (type_identifier) @name)) @scope
(impl_item type: (generic_type type: (scoped_type_identifier name: (type_identifier) @name))) @scope

; ---------------------------------------------------------------- inheritance

; `impl Trait for Foo` -> Foo implements Trait.
(impl_item trait: (type_identifier) @name @reference.implements)
(impl_item trait: (generic_type type: (type_identifier) @name) @reference.implements)
(impl_item
  trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name) @reference.implements)
(impl_item
  trait: (generic_type
    type: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)) @reference.implements)

; Supertraits: `trait T: Base + fmt::Debug`.
(trait_item bounds: (trait_bounds (type_identifier) @name @reference.inherits))
(trait_item bounds: (trait_bounds (generic_type type: (type_identifier) @name) @reference.inherits))
(trait_item
  bounds: (trait_bounds
    (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name) @reference.inherits))

; ---------------------------------------------------------------- calls

(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (scoped_identifier path: (_) @qualifier name: (identifier) @name)) @reference.call
(call_expression
  function: (field_expression value: (_) @qualifier field: (field_identifier) @name)) @reference.call
; Turbofish: `f::<T>()`, `x.collect::<Vec<_>>()`, `Foo::<T>::new()`.
(call_expression
  function: (generic_function function: (identifier) @name)) @reference.call
(call_expression
  function: (generic_function
    function: (scoped_identifier path: (_) @qualifier name: (identifier) @name))) @reference.call
(call_expression
  function: (generic_function
    function: (field_expression value: (_) @qualifier field: (field_identifier) @name))) @reference.call

; `Foo { x: 1 }` builds a Foo, the Rust analogue of `new Foo()`.
(struct_expression name: (type_identifier) @name) @reference.call
(struct_expression
  name: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)) @reference.call

; Macro invocations resolve to macro_rules! definitions.
(macro_invocation macro: (identifier) @name) @reference.call
(macro_invocation
  macro: (scoped_identifier path: (_) @qualifier name: (identifier) @name)) @reference.call

; ---------------------------------------------------------------- type references

; `Self` and one-letter generic parameters name nothing worth resolving.
((parameter type: (type_identifier) @name @reference.type)
  (#not-match? @name "^(Self|[A-Z])$"))
((function_item return_type: (type_identifier) @name @reference.type)
  (#not-match? @name "^(Self|[A-Z])$"))
((field_declaration type: (type_identifier) @name @reference.type)
  (#not-match? @name "^(Self|[A-Z])$"))

; ---------------------------------------------------------------- imports

; use a::b::C;   use x;   use a::b::C as D;   use a as b;
(use_declaration
  argument: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)) @import
(use_declaration argument: (identifier) @import.module) @import
(use_declaration
  argument: (use_as_clause
    path: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)
    alias: (identifier) @import.alias)) @import
(use_declaration
  argument: (use_as_clause path: (identifier) @import.module alias: (identifier) @import.alias)) @import

; use std::io::*;
(use_declaration argument: (use_wildcard (_) @import.module "*" @import.name)) @import

; use a::{b, c as d, e::F, self};  one Import per listed item.
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list (identifier) @import.name))) @import
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list (scoped_identifier) @import.name))) @import
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list
      (use_as_clause path: (_) @import.name alias: (identifier) @import.alias)))) @import
(use_declaration
  argument: (scoped_use_list path: (_) @import.module list: (use_list (self)))) @import

; extern crate serde;   extern crate foo as bar;
(extern_crate_declaration name: (identifier) @import.module !alias) @import
(extern_crate_declaration name: (identifier) @import.module alias: (identifier) @import.alias) @import

; mod foo;  (the module's body lives in foo.rs or foo/mod.rs)
(mod_item name: (identifier) @import.module !body) @import
