; Zig: `const Point = struct {...}` (struct, enum, union; `opaque {}` is a type), `fn` declarations, `@import`.
(VarDecl
  variable_type_function: (IDENTIFIER) @name
  (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "struct"))))) @definition.struct
(VarDecl
  variable_type_function: (IDENTIFIER) @name
  (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "enum"))))) @definition.enum
(VarDecl
  variable_type_function: (IDENTIFIER) @name
  (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "union"))))) @definition.struct
(VarDecl
  variable_type_function: (IDENTIFIER) @name
  (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "opaque"))))) @definition.type
(Decl (FnProto function: (IDENTIFIER) @name) (Block)? @body) @definition.function

(SuffixExpr variable_type_function: (IDENTIFIER) @name . (FnCallArguments)) @reference.call
(SuffixExpr
  variable_type_function: (IDENTIFIER) @qualifier
  (FieldOrFnCall function_call: (IDENTIFIER) @name)) @reference.call

(VarDecl
  variable_type_function: (IDENTIFIER) @import.alias
  (ErrorUnionExpr
    (SuffixExpr
      (BUILTINIDENTIFIER) @_import
      (FnCallArguments (ErrorUnionExpr (SuffixExpr (STRINGLITERALSINGLE) @import.module))))
  (#eq? @_import "@import"))) @import
