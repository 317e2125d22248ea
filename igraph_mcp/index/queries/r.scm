; R: `name <- function(...)` and `name = function(...)`; library/require/source import.
(binary_operator
  lhs: (identifier) @name
  operator: ["<-" "=" "<<-"]
  rhs: (function_definition body: (_) @body)) @definition.function
(call
  function: (identifier) @_set
  arguments: (arguments . (argument value: (string (string_content) @name)))
  (#match? @_set "^(setClass|setRefClass|R6Class)$")) @definition.class

(call function: (identifier) @name) @reference.call
(call function: (namespace_operator lhs: (identifier) @qualifier rhs: (identifier) @name)) @reference.call

(call
  function: (identifier) @_lib
  arguments: (arguments . (argument value: [(identifier) (string (string_content))] @import.module))
  (#match? @_lib "^(library|require|requireNamespace|source)$")) @import
