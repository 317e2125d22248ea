; Objective-C: @interface declares a class, @implementation qualifies the methods it defines, @protocol is an
; interface; a method is named by the first part of its selector (`initWithX:y:` -> initWithX).
(class_interface . (identifier) @name) @definition.class
(class_implementation . (identifier) @name) @scope
(protocol_declaration . (identifier) @name) @definition.interface
(method_declaration (method_type) . (identifier) @name) @definition.method
(method_definition (method_type) . (identifier) @name (compound_statement) @body) @definition.method
(function_definition declarator: (function_declarator declarator: (identifier) @name) body: (_) @body) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct

(message_expression receiver: (_) @qualifier method: (identifier) @name) @reference.call
(call_expression function: (identifier) @name) @reference.call

(class_interface superclass: (identifier) @name) @reference.inherits
(class_interface (parameterized_arguments (type_name (type_identifier) @name))) @reference.implements

(preproc_include path: [(string_literal (string_content) @import.module) (system_lib_string) @import.module]) @import
