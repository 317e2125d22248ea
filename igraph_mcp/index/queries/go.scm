; Go. Earlier patterns choose the kind; the later type_declaration/const_declaration patterns only
; widen a lone spec to its keyword so the signature reads "type Server struct".

; --- definitions
(type_spec
  name: (type_identifier) @name
  type: (struct_type (field_declaration_list "{" @body))) @definition.struct

(type_spec name: (type_identifier) @name type: (interface_type "{" @body)) @definition.interface

(type_spec name: (type_identifier) @name) @definition.type

(type_alias name: (type_identifier) @name) @definition.type

; `name:` would only see the first of `A, B = 1, 2`
(const_spec (identifier) @name) @definition.constant

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @receiver
             (pointer_type (type_identifier) @receiver)
             (generic_type type: (type_identifier) @receiver)
             (pointer_type (generic_type type: (type_identifier) @receiver))]))
  name: (field_identifier) @name) @definition.method

; an interface method: a declaration, linked to the methods of the types that have the whole method set
(method_elem name: (field_identifier) @name) @definition.method @declaration

(type_declaration . [(type_spec name: (type_identifier) @name) (type_alias name: (type_identifier) @name)] .) @definition.type

(const_declaration . (const_spec name: (identifier) @name) .) @definition.constant

; --- calls (a composite literal `Server{}` counts as constructing Server)
(call_expression function: (identifier) @name) @reference.call

(call_expression
  function: (selector_expression operand: (_) @qualifier field: (field_identifier) @name)) @reference.call

(composite_literal type: (type_identifier) @name) @reference.call

(composite_literal type: (qualified_type package: (_) @qualifier name: (_) @name)) @reference.call

; --- embedding is Go's inheritance
(field_declaration
  !name
  type: [(type_identifier) @name
         (pointer_type (type_identifier) @name)
         (qualified_type package: (_) @qualifier name: (_) @name)
         (pointer_type (qualified_type package: (_) @qualifier name: (_) @name))]) @reference.inherits

(interface_type
  (type_elem
    [(type_identifier) @name
     (qualified_type package: (_) @qualifier name: (_) @name)])) @reference.inherits

; --- type references (predeclared types left out)
(qualified_type package: (_) @qualifier name: (_) @name) @reference.type

; (#not-any-of? is ignored by py-tree-sitter 0.26, so the list is a regex)
((type_identifier) @name @reference.type
  (#not-match? @name "^(bool|byte|complex64|complex128|error|float32|float64|u?int(8|16|32|64)?|uintptr|rune|string|any|comparable)$"))

; --- imports
(import_spec path: (_) @import.module) @import

(import_spec name: (_) @import.alias path: (_) @import.module) @import

; --- facts for typing receivers (index/receivers.py): parameters and the method receiver, `var x T`,
; `x := &T{}` / `x := NewT()`, struct fields (in the struct's scope), a function's first result
(parameter_declaration name: (identifier) @fact.name type: (_) @fact.type) @fact

(variadic_parameter_declaration name: (identifier) @fact.name type: (_) @fact.type) @fact.variadic

(var_spec name: (identifier) @fact.name type: (_) @fact.type) @fact

(var_spec name: (identifier) @fact.name !type value: (expression_list . (_) @fact.value)) @fact

(short_var_declaration
  left: (expression_list . (identifier) @fact.name)
  right: (expression_list . (_) @fact.value)) @fact

; `line, seg := r.PeekLine()`: the second name holds the call's second result (its "()2" fact, below)
(short_var_declaration
  left: (expression_list . (identifier) . (identifier) @fact.name (#not-eq? @fact.name "_"))
  right: (expression_list . (call_expression) @fact.value .)) @fact.second

(field_declaration name: (field_identifier) @fact.name type: (_) @fact.type) @fact

; Names a loop or a type switch binds: a range's key or index and a type switch's alias, of types these facts
; cannot state (opaque: they shadow a package-level variable of the same name), and a range's second name, an
; element of what it ranges over (`for _, opt := range opts { opt.apply(v) }`).
(range_clause left: (expression_list . (identifier) @fact.name (#not-eq? @fact.name "_"))) @fact

(range_clause
  left: (expression_list (identifier) . (identifier) @fact.name (#not-eq? @fact.name "_"))
  right: (_) @fact.value) @fact.element

(type_switch_statement alias: (expression_list (identifier) @fact.name (#not-eq? @fact.name "_"))) @fact

(function_declaration
  result: [(type_identifier) (pointer_type) (qualified_type) (generic_type)] @fact.type) @fact.return

(function_declaration result: (parameter_list . (parameter_declaration type: (_) @fact.type))) @fact.return

(method_declaration
  result: [(type_identifier) (pointer_type) (qualified_type) (generic_type)] @fact.type) @fact.return

(method_declaration result: (parameter_list . (parameter_declaration type: (_) @fact.type))) @fact.return

(method_elem result: [(type_identifier) (pointer_type) (qualified_type) (generic_type)] @fact.type) @fact.return

(method_elem result: (parameter_list . (parameter_declaration type: (_) @fact.type))) @fact.return

; A function's second result, under the name "()2": `func (r *Reader) PeekLine() ([]byte, Segment)`
(function_declaration
  result: (parameter_list . (parameter_declaration) . (parameter_declaration type: (_) @fact.type))) @fact.return2

(method_declaration
  result: (parameter_list . (parameter_declaration) . (parameter_declaration type: (_) @fact.type))) @fact.return2

(method_elem
  result: (parameter_list . (parameter_declaration) . (parameter_declaration type: (_) @fact.type))) @fact.return2
