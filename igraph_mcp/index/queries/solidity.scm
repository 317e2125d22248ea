; Solidity: contracts, interfaces and libraries hold functions, modifiers, events, structs and enums.
(contract_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(library_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(function_definition name: (identifier) @name) @definition.function
(modifier_definition name: (identifier) @name) @definition.function
(event_definition name: (identifier) @name) @definition.type
(constructor_definition "constructor" @name) @definition.method

(call_expression function: (expression (identifier) @name)) @reference.call
(call_expression function: (expression (member_expression object: (_) @qualifier property: (identifier) @name))) @reference.call

(inheritance_specifier ancestor: (user_defined_type (identifier) @name)) @reference.inherits

(import_directive import_name: (identifier) @import.name source: (string) @import.module) @import
(import_directive source: (string) @import.module) @import
