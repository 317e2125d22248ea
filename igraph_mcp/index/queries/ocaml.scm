; OCaml: let-bound functions and values, modules (namespaces), types, classes and methods.
; the let_binding is the definition, so each `and` of `let rec f ... and g ...` starts on its own line
(let_binding pattern: (value_name) @name (parameter)) @definition.function
(let_binding pattern: (value_name) @name body: (fun_expression)) @definition.function
(let_binding pattern: (value_name) @name body: (function_expression)) @definition.function
(let_binding pattern: (parenthesized_operator) @name (parameter)) @definition.function
(module_definition (module_binding (module_name) @name)) @definition.namespace
(type_definition (type_binding name: (type_constructor) @name)) @definition.type
(class_definition (class_binding (class_name) @name)) @definition.class
(method_definition (method_name) @name) @definition.method
(value_specification (value_name) @name) @definition.function

(application_expression function: (value_path (value_name) @name .)) @reference.call
(application_expression function: (value_path (module_path) @qualifier (value_name) @name)) @reference.call

(open_module module: (module_path) @import.module) @import
