; Erlang: function clauses (one symbol per fun_decl), records; calls local and remote; -import and -include.
(fun_decl clause: (function_clause name: (atom) @name body: (_) @body)) @definition.function
(record_decl name: (atom) @name) @definition.struct
(module_attribute name: (atom) @name) @definition.namespace

(call expr: (atom) @name) @reference.call
(call expr: (remote module: (remote_module module: (atom) @qualifier) fun: (atom) @name)) @reference.call

(import_attribute module: (atom) @import.module (fa fun: (atom) @import.name)) @import
(pp_include file: (string) @import.module) @import
(pp_include_lib file: (string) @import.module) @import
