; Ruby tags.

(class name: (_) @name) @definition.class

(module name: (_) @name) @definition.module

(method name: (_) @name) @definition.function

(singleton_method name: (_) @name) @definition.method

(assignment left: (constant) @name) @definition.constant

; The callee is the text before the arguments or block: "obj.method".
(call method: (_)) @reference.call

(superclass (_) @reference.inherit)

; Arguments of include / extend / prepend (rules.py checks the method name).
(call
  !receiver
  method: (identifier)
  arguments: (argument_list (_) @reference.inherit))
