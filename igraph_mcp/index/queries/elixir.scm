; Elixir: modules and protocols are namespaces; def/defp/defmacro are functions (defp is private).
(call
  target: (identifier) @_kw
  (arguments . (alias) @name)
  (#match? @_kw "^(defmodule|defprotocol|defimpl)$")) @definition.namespace

(call
  target: (identifier) @_kw
  (arguments
    . [(call target: (identifier) @name)
       (identifier) @name
       (binary_operator left: (call target: (identifier) @name))])
  (#match? @_kw "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp)$")) @definition.function

(call
  target: (identifier) @name
  (#not-match? @name "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defmodule|defprotocol|defimpl|defstruct|defexception|alias|import|require|use|quote|unquote|if|unless|case|cond|with|for|fn|try|receive)$")) @reference.call
(call target: (dot left: (_) @qualifier right: (identifier) @name)) @reference.call

(call
  target: (identifier) @_kw
  (arguments . (alias) @import.module)
  (#match? @_kw "^(alias|import|require|use)$")) @import
