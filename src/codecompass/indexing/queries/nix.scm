; Nix tags: bindings of the file's top-level attribute set and let (functions when bound
; to a function), and functions bound anywhere else.

(binding attrpath: (_) @name expression: (function_expression)) @definition.function

(source_code
  [(attrset_expression (binding_set (binding attrpath: (_) @name) @definition.variable))
   (rec_attrset_expression (binding_set (binding attrpath: (_) @name) @definition.variable))
   (let_expression (binding_set (binding attrpath: (_) @name) @definition.variable))
   (let_expression
     body: [(attrset_expression (binding_set (binding attrpath: (_) @name) @definition.variable))
            (rec_attrset_expression (binding_set (binding attrpath: (_) @name) @definition.variable))])
   (function_expression
     body: [(attrset_expression (binding_set (binding attrpath: (_) @name) @definition.variable))
            (rec_attrset_expression (binding_set (binding attrpath: (_) @name) @definition.variable))
            (let_expression (binding_set (binding attrpath: (_) @name) @definition.variable))
            (let_expression
              body: [(attrset_expression (binding_set (binding attrpath: (_) @name) @definition.variable))
                     (rec_attrset_expression (binding_set (binding attrpath: (_) @name) @definition.variable))])])])

; `f a b` applies `f` to `a`, then the result to `b`: the innermost names the callee.
(apply_expression function: [(variable_expression) (select_expression)] @name) @reference.call
