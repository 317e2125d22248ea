; Java. Earlier patterns choose the kind when several name the same identifier.

; --- definitions
(package_declaration [(identifier) (scoped_identifier)] @name) @definition.namespace

(class_declaration name: (identifier) @name) @definition.class

(record_declaration name: (identifier) @name) @definition.class

(interface_declaration name: (identifier) @name) @definition.interface

(annotation_type_declaration name: (identifier) @name) @definition.interface

(enum_declaration name: (identifier) @name) @definition.enum

; @parameters: how many arguments a call may pass, so a call picks among overloads by its argument count
(method_declaration name: (identifier) @name parameters: (formal_parameters) @parameters) @definition.method

; interface and abstract methods (no body): declarations, linked to the methods of implementing classes
(method_declaration !body name: (identifier) @name) @definition.method @declaration

(constructor_declaration name: (identifier) @name parameters: (formal_parameters) @parameters) @definition.method

(compact_constructor_declaration name: (identifier) @name) @definition.method

; `static final` fields and interface constants
(field_declaration
  (modifiers "static" "final")
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant

(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant

; --- calls (`new Foo()` counts as a call to Foo); @arguments gives the argument count that picks an overload
(method_invocation !object name: (identifier) @name arguments: (argument_list) @arguments) @reference.call

(method_invocation object: (_) @qualifier name: (identifier) @name arguments: (argument_list) @arguments)
  @reference.call

(object_creation_expression
  type: [(type_identifier) @name
         (generic_type (type_identifier) @name)
         (scoped_type_identifier (_) @qualifier (type_identifier) @name .)
         (generic_type (scoped_type_identifier (_) @qualifier (type_identifier) @name .))]
  arguments: (argument_list) @arguments) @reference.call

; --- inheritance
(superclass
  [(type_identifier) @name
   (generic_type (type_identifier) @name)
   (scoped_type_identifier (_) @qualifier (type_identifier) @name .)
   (generic_type (scoped_type_identifier (_) @qualifier (type_identifier) @name .))]) @reference.inherits

(super_interfaces
  (type_list
    [(type_identifier) @name
     (generic_type (type_identifier) @name)
     (scoped_type_identifier (_) @qualifier (type_identifier) @name .)
     (generic_type (scoped_type_identifier (_) @qualifier (type_identifier) @name .))])) @reference.implements

(extends_interfaces
  (type_list
    [(type_identifier) @name
     (generic_type (type_identifier) @name)
     (scoped_type_identifier (_) @qualifier (type_identifier) @name .)
     (generic_type (scoped_type_identifier (_) @qualifier (type_identifier) @name .))])) @reference.inherits

; --- type references in declarations (java.lang basics and scoped parts like `java.io` left out)
(formal_parameter type: [(type_identifier) @name (generic_type (type_identifier) @name)]
  (#not-match? @name "^(String|Object|Integer|Long|Double|Boolean|Void)$")) @reference.type
(field_declaration type: [(type_identifier) @name (generic_type (type_identifier) @name)]
  (#not-match? @name "^(String|Object|Integer|Long|Double|Boolean|Void)$")) @reference.type
(local_variable_declaration type: [(type_identifier) @name (generic_type (type_identifier) @name)]
  (#not-match? @name "^(String|Object|Integer|Long|Double|Boolean|Void)$")) @reference.type
(method_declaration type: [(type_identifier) @name (generic_type (type_identifier) @name)]
  (#not-match? @name "^(String|Object|Integer|Long|Double|Boolean|Void)$")) @reference.type
(type_arguments [(type_identifier) @name (generic_type (type_identifier) @name)]
  (#not-match? @name "^(String|Object|Integer|Long|Double|Boolean|Void)$")) @reference.type

; --- imports: `import a.b.C` -> module "a.b", name "C"; `import a.b.*` -> name "*"
(import_declaration
  (scoped_identifier scope: (_) @import.module name: (identifier) @import.name) .) @import

(import_declaration (scoped_identifier) @import.module (asterisk) @import.name) @import

; --- facts for typing receivers (index/receivers.py): parameters, locals, fields and `for (T x : xs)` variables of
; a stated type (not `var`), and a method's result type (its "()" fact)
(formal_parameter type: (_) @fact.type name: (identifier) @fact.name) @fact

(local_variable_declaration
  type: (_) @fact.type
  declarator: (variable_declarator name: (identifier) @fact.name)
  (#not-eq? @fact.type "var")) @fact

(field_declaration type: (_) @fact.type declarator: (variable_declarator name: (identifier) @fact.name)) @fact

(enhanced_for_statement type: (_) @fact.type name: (identifier) @fact.name (#not-eq? @fact.type "var")) @fact

(method_declaration type: (_) @fact.type) @fact.return
