; Dart: the grammar puts a function's body beside its signature, so @body follows the definition node.
(class_definition name: (identifier) @name) @definition.class
(mixin_declaration (identifier) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.enum
(extension_declaration name: (identifier) @name) @definition.class
(type_alias (type_identifier) @name) @definition.type

((function_signature name: (identifier) @name) @definition.function . (function_body) @body)
((method_signature (function_signature name: (identifier) @name)) @definition.method . (function_body) @body)
((method_signature (getter_signature name: (identifier) @name)) @definition.method . (function_body) @body)
((method_signature (setter_signature name: (identifier) @name)) @definition.method . (function_body) @body)
((method_signature (factory_constructor_signature (identifier) @name)) @definition.method . (function_body) @body)
((method_signature (constructor_signature name: (identifier) @name)) @definition.method . (function_body) @body)
(declaration (function_signature name: (identifier) @name)) @definition.method
(declaration (constructor_signature name: (identifier) @name)) @definition.method
; abstract getters and setters (`bool get isOpen;`) are declarations without a body
(declaration (getter_signature name: (identifier) @name)) @definition.method
(declaration (setter_signature name: (identifier) @name)) @definition.method

; `helper(x)` and `obj.draw(1)`: an identifier followed by an argument selector
((identifier) @name . (selector (argument_part))) @reference.call
((selector (unconditional_assignable_selector (identifier) @name)) . (selector (argument_part))) @reference.call

(superclass (type_identifier) @name) @reference.inherits
(interfaces (type_identifier) @name) @reference.implements

(import_specification (configurable_uri (uri (string_literal) @import.module)) (identifier) @import.alias) @import
(import_specification (configurable_uri (uri (string_literal) @import.module))) @import
