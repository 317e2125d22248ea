; Swift: classes, structs, enums, extensions (a scope qualifying their members), protocols, functions.
(class_declaration "struct" name: (type_identifier) @name) @definition.struct
(class_declaration "enum" name: (type_identifier) @name) @definition.enum
(class_declaration "actor" name: (type_identifier) @name) @definition.class
(class_declaration name: (type_identifier) @name) @definition.class
(class_declaration "extension" name: (user_type (type_identifier) @name)) @scope
(protocol_declaration name: (type_identifier) @name) @definition.interface
(function_declaration name: (simple_identifier) @name body: (function_body) @body) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(init_declaration "init" @name) @definition.method
(typealias_declaration name: (type_identifier) @name) @definition.type

(call_expression (simple_identifier) @name) @reference.call
(call_expression
  (navigation_expression target: (_) @qualifier suffix: (navigation_suffix suffix: (simple_identifier) @name))) @reference.call

(inheritance_specifier inherits_from: (user_type (type_identifier) @name)) @reference.inherits

(import_declaration (identifier) @import.module) @import
