; Haskell: functions (each equation), data types, newtypes, classes (their signatures are methods), synonyms.
; A function with a type signature starts at the signature (the pair is one definition).
(declarations
  (signature name: (variable) @_sig) @definition.function
  .
  [(function name: (variable) @name) (bind name: (variable) @name)] @definition.function
  (#eq? @_sig @name))
; `f, g :: T`: the signature starts the first of its names
(declarations
  (signature names: (binding_list . (variable) @_sig)) @definition.function
  .
  [(function name: (variable) @name) (bind name: (variable) @name)] @definition.function
  (#eq? @_sig @name))
(declarations (function name: (variable) @name) @definition.function)
(declarations (bind name: (variable) @name) @definition.function)
(data_type name: (name) @name) @definition.struct
; record fields are accessor functions (`name r`)
(field (field_name (variable) @name)) @definition.function
(newtype name: (name) @name) @definition.struct
(type_synomym name: (name) @name) @definition.type
(class name: (name) @name) @definition.interface
(class_declarations (signature name: (variable) @name) @definition.method)
(instance_declarations (function name: (variable) @name) @definition.method)

(apply function: (variable) @name) @reference.call
(apply function: (qualified module: (module) @qualifier id: (variable) @name)) @reference.call

(import module: (module) @import.module alias: (module) @import.alias) @import
(import module: (module) @import.module names: (import_list (import_name [(variable) (name)] @import.name))) @import
(import module: (module) @import.module) @import
