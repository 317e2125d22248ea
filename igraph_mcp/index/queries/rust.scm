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
; `impl Trait for &'a Foo` (or `&mut Foo<T>`): a method of it is called on Foo values, so Foo names the scope;
; `impl Trait for u32` and `for &'a str` name the primitive. Slices, arrays and tuples stay unnamed.
(impl_item type: (primitive_type) @name) @scope
(impl_item type: (reference_type type: (primitive_type) @name)) @scope
(impl_item type: (reference_type type: (type_identifier) @name)) @scope
(impl_item type: (reference_type type: (generic_type type: (type_identifier) @name))) @scope
(impl_item type: (reference_type type: (scoped_type_identifier name: (type_identifier) @name))) @scope
(impl_item
  type: (reference_type type: (generic_type type: (scoped_type_identifier name: (type_identifier) @name)))) @scope

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

; Calls inside a macro's arguments (`assert!(self.is_valid(x))`, `vec![f(); n]`) are tokens to the grammar: a name
; right before a parenthesised group is a call; parse.py reads the path before it and leaves out `fn f(` and `$x(`.
((token_tree (identifier) @name @reference.call . (token_tree) @call_arguments)
  (#match? @call_arguments "^[(]"))
; A method named like a primitive type (`self.char()`) is a primitive_type token there.
((token_tree "." . (primitive_type) @name @reference.call . (token_tree) @call_arguments)
  (#match? @call_arguments "^[(]"))

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

; `use` trees are read in index/rust_uses.py (a list nests at any depth).

; extern crate serde;   extern crate foo as bar;
(extern_crate_declaration name: (identifier) @import.module !alias) @import
(extern_crate_declaration name: (identifier) @import.module alias: (identifier) @import.alias) @import

; mod foo;  (the module's body lives in foo.rs or foo/mod.rs)
(mod_item name: (identifier) @import.module !body) @import

; ---------------------------------------------------------------- facts (what a scope states about a name's type)

; Parameters and `let` bindings with a written type; a `let` without one by its value (`Foo::new(x)`,
; `Foo { .. }`, `other.clone()`); struct fields (`self.dfa.f()`); a function's result (`-> Self`); an alias's
; type as its "()" (`type OwnedDFA = DFA<Vec<u32>>`).
(parameter pattern: (identifier) @fact.name type: (_) @fact.type) @fact
(let_declaration pattern: (identifier) @fact.name type: (_) @fact.type) @fact
(let_declaration pattern: (identifier) @fact.name !type value: (_) @fact.value) @fact
(field_declaration name: (field_identifier) @fact.name type: (_) @fact.type) @fact
(ordered_field_declaration_list type: (_) @fact.type) @fact.positional
(function_item return_type: (_) @fact.type) @fact.return
(function_signature_item return_type: (_) @fact.type) @fact.return
(type_item type: (_) @fact.type) @fact.return
; `if let Some(m) = v` and a match arm's `Ok(m)`: what v's `Option` or `Result` holds.
(let_condition
  pattern: (tuple_struct_pattern type: (identifier) @variant . (identifier) @fact.name .)
  value: (_) @fact.value
  (#match? @variant "^(Some|Ok)$")) @fact.unwrap
(match_expression
  value: (_) @fact.value
  body: (match_block
    (match_arm
      pattern: (match_pattern (tuple_struct_pattern type: (identifier) @variant . (identifier) @fact.name .))
      (#match? @variant "^(Some|Ok)$")))) @fact.unwrap
; A closure an iterator's adaptor calls takes its elements: `self.states.iter().map(|s| s.id())`.
((call_expression
  function: (field_expression value: (_) @fact.value field: (field_identifier) @adaptor)
  arguments: (arguments (closure_expression parameters: (closure_parameters . (identifier) @fact.name .))))
  (#match? @adaptor "^(map|filter|for_each|any|all|find|filter_map|flat_map|position|take_while|skip_while|inspect|max_by_key|min_by_key|find_map|partition|fold)$")) @fact.element
; `for x in xs`: an element of xs (a `Vec`, a slice, a call's `Vec` result, or the `Item` of its `Iterator` impl).
(for_expression pattern: (identifier) @fact.name value: (_) @fact.value) @fact.element
; Names a pattern binds, of a type not written (`|e| ...`, `for (i, x) in ..`, `if let Some(ref e) = x`, `Err(e)`):
; a name bound twice in one function may be two things, so what it holds is not guessed. A capitalised name in a
; pattern is a variant or a type (`Some`, `Err`), no binding.
(closure_parameters (identifier) @fact.name) @fact
(for_expression pattern: (_ (identifier) @fact.name)) @fact
((let_condition pattern: (_ (identifier) @fact.name)) @fact (#not-match? @fact.name "^[A-Z]"))
((let_condition pattern: (_ (_ (identifier) @fact.name))) @fact (#not-match? @fact.name "^[A-Z]"))
((match_pattern (_ (identifier) @fact.name)) @fact (#not-match? @fact.name "^[A-Z]"))
((match_pattern (_ (_ (identifier) @fact.name))) @fact (#not-match? @fact.name "^[A-Z]"))
(let_declaration pattern: (tuple_pattern (identifier) @fact.name)) @fact
; A generic parameter is of its first bound's type: `fn f<E: Endian>(..) { E::write_u32(..) }`, `where R: Read`.
(type_parameter name: (type_identifier) @fact.name bounds: (trait_bounds . (_) @fact.type)) @fact
(where_predicate left: (type_identifier) @fact.name bounds: (trait_bounds . (_) @fact.type)) @fact
