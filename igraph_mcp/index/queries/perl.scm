; Perl: packages are namespaces that enclose the statements after them; subs are functions.
(package_statement name: (package) @name) @definition.namespace @open
(subroutine_declaration_statement name: (bareword) @name body: (block) @body) @definition.function

(function_call_expression function: (function) @name) @reference.call
(ambiguous_function_call_expression function: (function) @name) @reference.call
(method_call_expression invocant: (_) @qualifier method: (method) @name) @reference.call

(use_statement module: (package) @import.module) @import
(require_expression (bareword) @import.module) @import
