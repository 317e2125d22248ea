; Clojure: (defn ...), (defmacro ...), (defprotocol ...), (defrecord ...), (ns ... (:require ...)).
(list_lit
  . (sym_lit name: (sym_name) @_def)
  . (sym_lit name: (sym_name) @name)
  (#match? @_def "^(defn|defn-|defmacro|defmulti|defmethod)$")) @definition.function
(list_lit
  . (sym_lit name: (sym_name) @_def)
  . (sym_lit name: (sym_name) @name)
  (#match? @_def "^(defprotocol|definterface)$")) @definition.interface
(list_lit
  . (sym_lit name: (sym_name) @_def)
  . (sym_lit name: (sym_name) @name)
  (#match? @_def "^(defrecord|deftype)$")) @definition.class
(list_lit
  . (sym_lit name: (sym_name) @_def)
  . (sym_lit name: (sym_name) @name)
  (#eq? @_def "ns")) @definition.namespace

(list_lit
  . (sym_lit !namespace name: (sym_name) @name)
  (#not-match? @name "^(def|defn|defn-|defmacro|defmulti|defmethod|defprotocol|definterface|defrecord|deftype|ns|let|fn|if|do|when|loop|recur|cond|quote)$")) @reference.call
(list_lit . (sym_lit namespace: (sym_ns) @qualifier name: (sym_name) @name)) @reference.call

(list_lit
  . (kwd_lit name: (kwd_name) @_req)
  (vec_lit . (sym_lit name: (sym_name) @import.module) (kwd_lit) . (sym_lit name: (sym_name) @import.alias))
  (#eq? @_req "require")) @import
(list_lit
  . (kwd_lit name: (kwd_name) @_req)
  (vec_lit . (sym_lit name: (sym_name) @import.module))
  (#eq? @_req "require")) @import
