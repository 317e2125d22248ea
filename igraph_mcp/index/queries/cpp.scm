; C++ definitions, references and includes (capture names: see briefs/parse_convention.md).
; When two patterns capture the same @name, parse.py keeps the widest node: the
; `template_declaration` patterns below therefore win over the plain ones, so a template's
; signature and doc comment start at its `template <...>` line.

; ---------------------------------------------------------------- types and namespaces

(namespace_definition name: (namespace_identifier) @name) @definition.namespace
(namespace_definition name: (nested_namespace_specifier) @name) @definition.namespace

(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
; partial specialisations (`struct is_x<T, U> { ... }`) define the template they specialise
(class_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.class
(struct_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum

(template_declaration (class_specifier name: (type_identifier) @name body: (_))) @definition.class
(template_declaration (struct_specifier name: (type_identifier) @name body: (_))) @definition.struct
(template_declaration (union_specifier name: (type_identifier) @name body: (_))) @definition.struct
(template_declaration (class_specifier name: (template_type name: (type_identifier) @name) body: (_))) @definition.class
(template_declaration (struct_specifier name: (template_type name: (type_identifier) @name) body: (_))) @definition.struct

; `typedef struct [Tag] { ... } Name;`: the whole typedef is the struct, named by its tag when
; it has one (same @name as the plain pattern, so the wider typedef node wins) else by Name.
(type_definition type: (struct_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (union_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (enum_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.enum
(type_definition type: (struct_specifier name: (type_identifier) @name body: (_))) @definition.struct
(type_definition type: (class_specifier name: (type_identifier) @name body: (_))) @definition.class
(type_definition type: (enum_specifier name: (type_identifier) @name body: (_))) @definition.enum

; Type aliases: typedef without a body, `using X = ...`, and alias templates.
(type_definition
  type: [
    (primitive_type)
    (type_identifier)
    (sized_type_specifier)
    (qualified_identifier)
    (template_type)
    (struct_specifier !body)
    (class_specifier !body)
    (union_specifier !body)
    (enum_specifier !body)
  ]
  declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator declarator: (type_identifier) @name)))) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(template_declaration (alias_declaration name: (type_identifier) @name)) @definition.type

; ---------------------------------------------------------------- functions

; The declarator holds the name under an optional pointer/reference wrapper. An out-of-class
; definition `R Foo::bar()` names its class as @receiver -> "Foo.bar"; for `A::B::bar()` the
; whole qualified name is the @receiver, and its text before the name qualifies -> "A.B.bar".
; A definition inside `namespace geo { }` is qualified by geo too (receiver_scope_kinds).
(function_definition
  declarator: [
    (function_declarator
      declarator: [
        (identifier) @name
        (field_identifier) @name
        (operator_name) @name
        (destructor_name) @name
        (qualified_identifier
          scope: (_) @receiver
          name: [(identifier) (operator_name) (destructor_name)] @name)
        (qualified_identifier
          name: (qualified_identifier
            name: [(identifier) (operator_name) (destructor_name)] @name)) @receiver
        (qualified_identifier
          name: (qualified_identifier
            name: (qualified_identifier
              name: [(identifier) (operator_name) (destructor_name)] @name))) @receiver
      ])
    (pointer_declarator
      declarator: (function_declarator
        declarator: [
          (identifier) @name
          (field_identifier) @name
          (operator_name) @name
          (qualified_identifier scope: (_) @receiver name: [(identifier) (operator_name)] @name)
          (qualified_identifier
            name: (qualified_identifier name: [(identifier) (operator_name)] @name)) @receiver
        ]))
    (reference_declarator
      (function_declarator
        declarator: [
          (identifier) @name
          (field_identifier) @name
          (operator_name) @name
          (qualified_identifier scope: (_) @receiver name: [(identifier) (operator_name)] @name)
          (qualified_identifier
            name: (qualified_identifier name: [(identifier) (operator_name)] @name)) @receiver
        ]))
  ]) @definition.function

(template_declaration
  (function_definition
    declarator: [
      (function_declarator
        declarator: [
          (identifier) @name
          (field_identifier) @name
          (operator_name) @name
          (qualified_identifier
            scope: (_) @receiver
            name: [(identifier) (operator_name) (destructor_name)] @name)
          (qualified_identifier
            name: (qualified_identifier
              name: [(identifier) (operator_name) (destructor_name)] @name)) @receiver
          (qualified_identifier
            name: (qualified_identifier
              name: (qualified_identifier
                name: [(identifier) (operator_name) (destructor_name)] @name))) @receiver
        ])
      (pointer_declarator
        declarator: (function_declarator
          declarator: [
            (identifier) @name
            (field_identifier) @name
            (qualified_identifier scope: (_) @receiver name: (identifier) @name)
            (qualified_identifier name: (qualified_identifier name: (identifier) @name)) @receiver
          ]))
      (reference_declarator
        (function_declarator
          declarator: [
            (identifier) @name
            (field_identifier) @name
            (qualified_identifier scope: (_) @receiver name: (identifier) @name)
            (qualified_identifier name: (qualified_identifier name: (identifier) @name)) @receiver
          ]))
    ])) @definition.function

; Member declarations inside a class body (often the only place a method's doc comment lives;
; pure virtual methods have nothing else), and prototypes at file or namespace scope: declarations, linked to
; their definitions (and a virtual member to its overrides).
(field_declaration
  declarator: [
    (function_declarator declarator: [(field_identifier) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
    (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name)] @name))
  ]) @definition.function @declaration
(field_declaration_list
  (declaration
    declarator: (function_declarator declarator: [(identifier) (destructor_name)] @name)) @definition.function @declaration)
(field_declaration_list
  (template_declaration
    (declaration
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (reference_declarator (function_declarator declarator: (identifier) @name))
      ])) @definition.function @declaration)
(translation_unit (declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
  ]) @definition.function @declaration)
(declaration_list (declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
  ]) @definition.function @declaration)
(preproc_ifdef (declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
  ]) @definition.function @declaration)
(preproc_if (declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
  ]) @definition.function @declaration)

; ---------------------------------------------------------------- constants

; const / constexpr variables at namespace scope and constant class members.
((translation_unit
  (declaration
    (type_qualifier) @_qualifier
    declarator: (init_declarator declarator: (identifier) @name)) @definition.constant)
  (#any-of? @_qualifier "const" "constexpr"))
((declaration_list
  (declaration
    (type_qualifier) @_qualifier
    declarator: (init_declarator declarator: (identifier) @name)) @definition.constant)
  (#any-of? @_qualifier "const" "constexpr"))
((field_declaration
  (type_qualifier) @_qualifier
  declarator: (field_identifier) @name
  default_value: (_)) @definition.constant
  (#any-of? @_qualifier "const" "constexpr"))

; Macros, as in C.
(preproc_def name: (identifier) @name value: (_)) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.function

; ---------------------------------------------------------------- inheritance

; `class D : public B, private ns::C, Tmpl<int>` (C++ has no separate "implements").
(base_class_clause (type_identifier) @name @reference.inherits)
(base_class_clause (template_type name: (type_identifier) @name) @reference.inherits)
(base_class_clause
  (qualified_identifier
    scope: (_) @qualifier
    name: [(type_identifier) @name (template_type name: (type_identifier) @name)]) @reference.inherits)
(base_class_clause
  (qualified_identifier
    name: (qualified_identifier
      scope: (_) @qualifier
      name: [(type_identifier) @name (template_type name: (type_identifier) @name)])) @reference.inherits)

; ---------------------------------------------------------------- calls

; For `a::B::f()` the qualifier is the innermost scope (`B`): the owner a resolver looks for.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression
  function: (qualified_identifier
    scope: (_) @qualifier
    name: [(identifier) @name (template_function name: (identifier) @name)])) @reference.call
(call_expression
  function: (qualified_identifier
    name: (qualified_identifier
      scope: (_) @qualifier
      name: [(identifier) @name (template_function name: (identifier) @name)]))) @reference.call
(call_expression
  function: (qualified_identifier
    name: (qualified_identifier
      name: (qualified_identifier
        scope: (_) @qualifier
        name: [(identifier) @name (template_function name: (identifier) @name)])))) @reference.call
(call_expression
  function: (field_expression
    argument: (_) @qualifier
    field: [(field_identifier) @name (template_method name: (field_identifier) @name)])) @reference.call

; `new Foo(...)` constructs a Foo.
(new_expression type: (type_identifier) @name) @reference.call
(new_expression type: (template_type name: (type_identifier) @name)) @reference.call
(new_expression
  type: (qualified_identifier
    scope: (_) @qualifier
    name: [(type_identifier) @name (template_type name: (type_identifier) @name)])) @reference.call

; `Derived(int x) : Base(x), name_(x) {}` constructs its base (or, delegating, its own class); parse.py keeps the
; initialisers that name a base or the class, not the fields.
(field_initializer
  [(field_identifier) @name (template_method name: (field_identifier) @name)]
  [(argument_list) (initializer_list)]) @reference.call

; ---------------------------------------------------------------- type references

; One-letter names are template parameters, not types worth resolving.
((parameter_declaration type: (type_identifier) @name @reference.type)
  (#not-match? @name "^[A-Z]$"))
(parameter_declaration
  type: (qualified_identifier scope: (_) @qualifier name: (type_identifier) @name) @reference.type)
((field_declaration type: (type_identifier) @name @reference.type)
  (#not-match? @name "^[A-Z]$"))
((function_definition type: (type_identifier) @name @reference.type)
  (#not-match? @name "^[A-Z]$"))

; ---------------------------------------------------------------- imports

(preproc_include path: (string_literal (string_content) @import.module)) @import
(preproc_include path: (system_lib_string) @import.module) @import

; `using namespace std;` binds a whole namespace; `using std::string;` one member.
((using_declaration [(identifier) (qualified_identifier)] @import.module) @import
  (#match? @import "^using\\s+namespace\\b"))
((using_declaration
  (qualified_identifier scope: (_) @import.module name: (identifier) @import.name)) @import
  (#not-match? @import "^using\\s+namespace\\b"))

; `namespace fs = std::filesystem;`
(namespace_alias_definition
  name: (namespace_identifier) @import.alias
  [(nested_namespace_specifier) (namespace_identifier)] @import.module) @import

; ---------------------------------------------------------------- facts for typing receivers (index/receivers.py)

; Parameters, locals, range-for variables and fields of a stated type (through `*`, `&`), an `auto` local by its
; value, and a function's or a member declaration's result type (its "()" fact); an alias's type as its "()" too.
(parameter_declaration
  type: (_) @fact.type
  declarator: [
    (identifier) @fact.name
    (pointer_declarator declarator: (identifier) @fact.name)
    (reference_declarator (identifier) @fact.name)
  ]) @fact
(optional_parameter_declaration
  type: (_) @fact.type
  declarator: [
    (identifier) @fact.name
    (pointer_declarator declarator: (identifier) @fact.name)
    (reference_declarator (identifier) @fact.name)
  ]) @fact
((declaration
  type: (_) @fact.type
  declarator: [
    (identifier) @fact.name
    (pointer_declarator declarator: (identifier) @fact.name)
    (reference_declarator (identifier) @fact.name)
    (init_declarator
      declarator: [
        (identifier) @fact.name
        (pointer_declarator declarator: (identifier) @fact.name)
        (reference_declarator (identifier) @fact.name)
      ])
  ]) @fact
  (#not-match? @fact.type "^(auto|decltype)"))
(declaration
  type: (placeholder_type_specifier)
  declarator: (init_declarator
    declarator: [
      (identifier) @fact.name
      (pointer_declarator declarator: (identifier) @fact.name)
      (reference_declarator (identifier) @fact.name)
    ]
    value: (_) @fact.value)) @fact
((for_range_loop
  type: (_) @fact.type
  declarator: [
    (identifier) @fact.name
    (pointer_declarator declarator: (identifier) @fact.name)
    (reference_declarator (identifier) @fact.name)
  ]) @fact
  (#not-match? @fact.type "^(auto|decltype)"))
(for_range_loop
  type: (placeholder_type_specifier)
  declarator: [
    (identifier) @fact.name
    (pointer_declarator declarator: (identifier) @fact.name)
    (reference_declarator (identifier) @fact.name)
  ]
  right: (_) @fact.value) @fact.element
(field_declaration
  type: (_) @fact.type
  declarator: [
    (field_identifier) @fact.name
    (pointer_declarator declarator: (field_identifier) @fact.name)
    (reference_declarator (field_identifier) @fact.name)
  ]) @fact

((function_definition type: (_) @fact.type) @fact.return
  (#not-match? @fact.type "^(auto|decltype)"))
((field_declaration
  type: (_) @fact.type
  declarator: [
    (function_declarator)
    (pointer_declarator declarator: (function_declarator))
    (reference_declarator (function_declarator))
  ]) @fact.return
  (#not-match? @fact.type "^(auto|decltype)"))
((declaration
  type: (_) @fact.type
  declarator: [
    (function_declarator)
    (pointer_declarator declarator: (function_declarator))
    (reference_declarator (function_declarator))
  ]) @fact.return
  (#not-match? @fact.type "^(auto|decltype)"))
(alias_declaration type: (type_descriptor) @fact.type) @fact.return
(type_definition type: [(type_identifier) (qualified_identifier) (template_type)] @fact.type declarator: (type_identifier)) @fact.return
