; Python. Earlier patterns choose the kind when several name the same identifier;
; the widest node (decorators included) gives the range.

; --- definitions
(class_definition
  name: (identifier) @name
  superclasses: (argument_list
    [(identifier) (attribute)] @_base
    (#match? @_base "(^|\\.)(Enum|IntEnum|StrEnum|Flag|IntFlag)$"))) @definition.enum

(class_definition
  name: (identifier) @name
  superclasses: (argument_list
    [(identifier) (attribute)] @_base
    (#match? @_base "(^|\\.)Protocol$"))) @definition.interface

(class_definition name: (identifier) @name) @definition.class

(function_definition name: (identifier) @name) @definition.function

(decorated_definition
  definition: [
    (function_definition name: (identifier) @name body: (block) @body)
    (class_definition name: (identifier) @name body: (block) @body)
  ]) @definition.function

(type_alias_statement left: (type [(identifier) @name (generic_type (identifier) @name)])) @definition.type

(module
  (assignment
    left: (identifier) @name
    type: (type [(identifier) (attribute)] @_t (#match? @_t "(^|\\.)TypeAlias$"))) @definition.type)

(module
  (assignment left: (identifier) @name (#match? @name "^_*[A-Z][A-Z0-9_]*$")) @definition.constant)

; --- calls
(call function: (identifier) @name) @reference.call

(call
  function: (attribute object: (_) @qualifier attribute: (identifier) @name)) @reference.call

; --- inheritance
(class_definition
  superclasses: (argument_list
    [(identifier) @name
     (attribute object: (_) @qualifier attribute: (identifier) @name)
     (subscript value: (identifier) @name)
     (subscript value: (attribute object: (_) @qualifier attribute: (identifier) @name))])) @reference.inherits

; --- type references in annotations
(type [(identifier) @name (generic_type (identifier) @name)]) @reference.type
(type (attribute object: (_) @qualifier attribute: (identifier) @name)) @reference.type

; --- imports
(import_statement name: (dotted_name) @import.module) @import

(import_statement
  name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias)) @import

(import_from_statement
  module_name: (_) @import.module
  name: (dotted_name) @import.name) @import

(import_from_statement
  module_name: (_) @import.module
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @import

(import_from_statement
  module_name: (_) @import.module
  (wildcard_import) @import.name) @import

; --- facts for inferring receivers (x = Session(); x: Session; -> Session; self.x = ...)
(assignment
  left: (identifier) @fact.name
  right: [(call) (identifier) (attribute) (dictionary) (list) (set) (string) (concatenated_string) (integer)
          (float) (dictionary_comprehension) (list_comprehension) (set_comprehension)] @fact.value) @fact
(assignment left: (identifier) @fact.name type: (type) @fact.type) @fact
(assignment
  left: (attribute object: (identifier) @_self attribute: (identifier) @fact.name)
  right: [(call) (identifier) (attribute)] @fact.value
  (#eq? @_self "self")) @fact.attr
(assignment
  left: (attribute object: (identifier) @_self attribute: (identifier) @fact.name)
  type: (type) @fact.type
  (#eq? @_self "self")) @fact.attr
(typed_parameter (identifier) @fact.name type: (type) @fact.type) @fact
(typed_default_parameter name: (identifier) @fact.name type: (type) @fact.type) @fact
(parameters (identifier) @fact.name) @fact
(parameters (default_parameter name: (identifier) @fact.name)) @fact
(parameters [(list_splat_pattern (identifier) @fact.name) (dictionary_splat_pattern (identifier) @fact.name)]) @fact
(lambda_parameters (identifier) @fact.name) @fact
(for_statement left: (identifier) @fact.name) @fact
(for_statement left: (pattern_list (identifier) @fact.name)) @fact
(as_pattern alias: (as_pattern_target (identifier) @fact.name)) @fact
(function_definition return_type: (type) @fact.type) @fact.return
