; Julia: modules, structs, abstract types, functions (long and short form), macros.
(module_definition name: (identifier) @name) @definition.namespace
(struct_definition (type_head [(identifier) @name (binary_expression . (identifier) @name) (parametrized_type_expression . (identifier) @name)])) @definition.struct
(abstract_definition (type_head [(identifier) @name (binary_expression . (identifier) @name)])) @definition.type
(function_definition (signature (call_expression . [(identifier) @name (field_expression (identifier) @name .)]))) @definition.function
(function_definition (signature (typed_expression (call_expression . (identifier) @name)))) @definition.function
(function_definition (signature (where_expression (call_expression . (identifier) @name)))) @definition.function
(macro_definition (signature (call_expression . (identifier) @name))) @definition.function
(assignment . (call_expression . (identifier) @name) (operator) @_eq (#eq? @_eq "=")) @definition.function

(call_expression . (identifier) @name) @reference.call
(call_expression . (field_expression value: (_) @qualifier (identifier) @name .)) @reference.call

(using_statement (identifier) @import.module) @import
(import_statement (identifier) @import.module) @import
(import_statement (selected_import . (identifier) @import.module (identifier) @import.name)) @import
(using_statement (selected_import . (identifier) @import.module (identifier) @import.name)) @import
