; Ruby definitions, references and requires (capture names: see briefs/parse_convention.md).

; ---------------------------------------------------------------- definitions

; `class A::B` / `module A::B` name their outer constant as @receiver -> "A.B".
(module name: (constant) @name) @definition.namespace
(module name: (scope_resolution scope: (_) @receiver name: (constant) @name)) @definition.namespace
(class name: (constant) @name) @definition.class
(class name: (scope_resolution scope: (_) @receiver name: (constant) @name)) @definition.class

; `def m` and `def self.m`; both become methods inside a class or module.
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function

; `Point = Struct.new(:x, :y)` defines a class. This pattern precedes the constant one
; below so that it wins when both capture the same name.
((assignment
  left: (constant) @name
  right: (call receiver: (constant) @_receiver method: (identifier) @_method)) @definition.class
  (#any-of? @_receiver "Struct" "Class" "Data")
  (#any-of? @_method "new" "define"))
(assignment left: (constant) @name) @definition.constant

; ---------------------------------------------------------------- inheritance

(class superclass: (superclass (constant) @name @reference.inherits))
(class
  superclass: (superclass
    (scope_resolution scope: (_) @qualifier name: (constant) @name) @reference.inherits))

; Mixins: `include Comparable`, `extend Mod::X`, `prepend Y`.
((call
  !receiver
  method: (identifier) @_mixin
  arguments: (argument_list (constant) @name @reference.implements))
  (#any-of? @_mixin "include" "extend" "prepend"))
((call
  !receiver
  method: (identifier) @_mixin
  arguments: (argument_list
    (scope_resolution scope: (_) @qualifier name: (constant) @name) @reference.implements))
  (#any-of? @_mixin "include" "extend" "prepend"))

; ---------------------------------------------------------------- calls

; Receiver-less calls, minus the keywords-in-disguise handled elsewhere or naming nothing.
; (#not-any-of? is not applied by py-tree-sitter 0.26, hence the regex.)
((call !receiver method: (identifier) @name) @reference.call
  (#not-match? @name
    "^(require|require_relative|load|autoload|include|extend|prepend|attr_reader|attr_writer|attr_accessor|private|protected|public|module_function|private_constant)$"))

; `obj.run(x)`, `self.class.build`, `Foo::Bar.baz`; `Foo.new` is a call to Foo itself.
((call receiver: (_) @qualifier method: (identifier) @name) @reference.call
  (#not-eq? @name "new"))
((call receiver: (constant) @name method: (identifier) @_new) @reference.call
  (#eq? @_new "new"))
((call
  receiver: (scope_resolution scope: (_) @qualifier name: (constant) @name)
  method: (identifier) @_new) @reference.call
  (#eq? @_new "new"))

; ---------------------------------------------------------------- imports

((call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list . (string (string_content) @import.module))) @import
  (#any-of? @_require "require" "require_relative" "load"))
; `autoload :Foo, "foo"` loads a file on first use of Foo.
((call
  !receiver
  method: (identifier) @_autoload
  arguments: (argument_list . (simple_symbol) . (string (string_content) @import.module))) @import
  (#eq? @_autoload "autoload"))
