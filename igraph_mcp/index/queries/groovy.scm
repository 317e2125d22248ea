; Groovy: the grammar is generic (commands made of units), so shapes are matched by keyword.
(command
  (unit (identifier) @_kw)
  .
  (unit (identifier) @name)
  (#match? @_kw "^(class|interface|trait|enum)$")) @definition.class
; `class Name {` without a clause after the name: the grammar puts the name first inside the block
(command
  (unit (identifier) @_kw)
  .
  (block . (unit (identifier) @name))
  (#match? @_kw "^(class|interface|trait|enum)$")) @definition.class
(command
  (unit (identifier) @_type)
  .
  (block . (unit (func (identifier) @name (arg_block))) . [(end_command) (block) (command) (line_comment) (block_comment)])
  (#not-match? @_type "^(class|interface|trait|enum|package|import|return|new|if|while|for|switch)$")
  ; `} else if (x) {` has the same shape as `Type name(args) {`
  (#not-match? @name "^(if|else|while|for|switch|catch|return|new|try|finally|do|synchronized)$")) @definition.function
; A header without a body (`String describe()` in an interface, `boolean all() default true` in an annotation), a
; `throws` clause before the body, or an empty body (`void hidden(Event e) { }`). The grammar reads these like a
; command `name arg(...)`, so the type must look like one: a capitalized name or a primitive (`println f(x)` is a call).
(command
  (unit (identifier) @_type)
  .
  (unit (func (identifier) @name (arg_block)))
  (#match? @_type "^([A-Z][A-Za-z0-9_]*|void|boolean|int|long|double|float|char|byte|short|def)$")) @definition.function
(command
  (unit (identifier) @_type)
  .
  (block . (unit (func (identifier) @name (arg_block))) .)
  (#match? @_type "^([A-Z][A-Za-z0-9_]*|void|boolean|int|long|double|float|char|byte|short|def)$")) @definition.function
; an array return type (`URI[] resolve(...) {`): the grammar reads `[]` as an empty list after the type
(command
  (unit (identifier) @_type)
  .
  (list)
  .
  (block . (unit (func (identifier) @name (arg_block))))
  (#match? @_type "^([A-Z][A-Za-z0-9_]*|boolean|int|long|double|float|char|byte|short)$")) @definition.function
; a generic return type (`List<String> names() {`)
(command
  (unit (generics_class))
  .
  (block . (unit (func (identifier) @name (arg_block))) . [(end_command) (block) (command) (line_comment) (block_comment)])) @definition.function

(end_command (unit (func (identifier) @name))) @reference.call
(end_command (unit (func) @qualifier . (func (identifier) @name))) @reference.call

(command
  (unit (identifier) @_import)
  .
  (unit (identifier) (identifier)+ @import.name .) @import.module
  (#eq? @_import "import")) @import
