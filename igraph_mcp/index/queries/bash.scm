; Bash: function definitions; commands are calls; `source`/`.` import a file.
(function_definition name: (word) @name body: (_) @body) @definition.function

(command
  name: (command_name (word) @name)
  (#not-match? @name "^(source|[.]|echo|printf|local|export|cd|test|true|false|return|exit|set|shift|read|eval|exec)$")) @reference.call

(command
  name: (command_name (word) @_source)
  argument: (_) @import.module
  (#match? @_source "^(source|[.])$")) @import
