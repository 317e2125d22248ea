; Lua: `function M.f()`, `function M:m()` (qualified by the table), local and global functions, assigned functions.
(function_declaration name: (identifier) @name body: (_)? @body) @definition.function
(function_declaration
  name: (dot_index_expression table: (_) @receiver field: (identifier) @name)) @definition.function
(function_declaration
  name: (method_index_expression table: (_) @receiver method: (identifier) @name)) @definition.function
(assignment_statement
  (variable_list . (dot_index_expression table: (_) @receiver field: (identifier) @name))
  (expression_list . (function_definition))) @definition.function
(assignment_statement
  (variable_list . (identifier) @name)
  (expression_list . (function_definition))) @definition.function

(function_call name: (identifier) @name) @reference.call
(function_call name: (dot_index_expression table: (_) @qualifier field: (identifier) @name)) @reference.call
(function_call name: (method_index_expression table: (_) @qualifier method: (identifier) @name)) @reference.call

; `local x = require("a.b")`
(variable_declaration
  (assignment_statement
    (variable_list . (identifier) @import.alias)
    (expression_list
      (function_call
        name: (identifier) @_require
        arguments: (arguments . (string content: (_) @import.module)))))
  (#eq? @_require "require")) @import
(chunk
  (function_call
    name: (identifier) @_require
    arguments: (arguments . (string content: (_) @import.module))
    (#eq? @_require "require")) @import)

; table fields holding functions: `{ __index = function (t, k) ... end }`
(field name: (identifier) @name value: (function_definition body: (_)? @body)) @definition.function
