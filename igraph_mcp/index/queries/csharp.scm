; C#. Earlier patterns choose the kind when several name the same identifier.

; --- definitions
(namespace_declaration name: (_) @name) @definition.namespace

; `namespace A.B;` has no body: @open makes it enclose the rest of the file.
(file_scoped_namespace_declaration name: (_) @name) @definition.namespace @open

(class_declaration name: (identifier) @name) @definition.class

(record_declaration name: (identifier) @name) @definition.class

(struct_declaration name: (identifier) @name) @definition.struct

(interface_declaration name: (identifier) @name) @definition.interface

(enum_declaration name: (identifier) @name) @definition.enum

(delegate_declaration name: (identifier) @name) @definition.type

(method_declaration name: (identifier) @name) @definition.method

(constructor_declaration name: (identifier) @name) @definition.method

(local_function_statement name: (identifier) @name) @definition.function

(field_declaration
  (modifier) @_const
  (variable_declaration (variable_declarator name: (identifier) @name))
  (#eq? @_const "const")) @definition.constant

; --- calls (`new Foo()` counts as a call to Foo)
(invocation_expression
  function: [(identifier) @name (generic_name (identifier) @name)]) @reference.call

(invocation_expression
  function: (member_access_expression
    expression: (_) @qualifier
    name: [(identifier) @name (generic_name (identifier) @name)])) @reference.call

(object_creation_expression
  type: [(identifier) @name
         (generic_name (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name (identifier) @name)])]) @reference.call

; --- inheritance: C# does not mark interfaces in a base list; the I-prefix convention decides for
; classes and records, a struct's bases are all interfaces, an interface's bases are inherited.
(class_declaration
  (base_list
    [(identifier) @name
     (generic_name (identifier) @name)
     (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name (identifier) @name)])]
    (#match? @name "^I[A-Z]"))) @reference.implements

(class_declaration
  (base_list
    [(identifier) @name
     (generic_name (identifier) @name)
     (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name (identifier) @name)])]
    (#not-match? @name "^I[A-Z]"))) @reference.inherits

(record_declaration
  (base_list
    [(identifier) @name
     (generic_name (identifier) @name)
     (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name (identifier) @name)])]
    (#match? @name "^I[A-Z]"))) @reference.implements

(record_declaration
  (base_list
    [(identifier) @name
     (generic_name (identifier) @name)
     (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name (identifier) @name)])]
    (#not-match? @name "^I[A-Z]"))) @reference.inherits

(struct_declaration
  (base_list
    [(identifier) @name
     (generic_name (identifier) @name)
     (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name (identifier) @name)])])) @reference.implements

(interface_declaration
  (base_list
    [(identifier) @name
     (generic_name (identifier) @name)
     (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name (identifier) @name)])])) @reference.inherits

; --- type references in declarations
(parameter type: [(identifier) @name (generic_name (identifier) @name)]) @reference.type
(variable_declaration type: [(identifier) @name (generic_name (identifier) @name)]) @reference.type
(method_declaration returns: [(identifier) @name (generic_name (identifier) @name)]) @reference.type
(property_declaration type: [(identifier) @name (generic_name (identifier) @name)]) @reference.type

; --- imports: `using A.B;`, `using static A.B;`, `using X = A.B;`
(using_directive !name [(identifier) (qualified_name)] @import.module) @import

(using_directive name: (identifier) @import.alias [(identifier) (qualified_name)] @import.module) @import

; operators are named by their symbol (`operator +` -> "+"), conversions by their target type
(operator_declaration operator: _ @name body: (_)? @body) @definition.method
(conversion_operator_declaration type: (_) @name body: (_)? @body) @definition.method
(destructor_declaration name: (identifier) @name body: (_)? @body) @definition.method
