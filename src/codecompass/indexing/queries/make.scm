; Makefile tags: rules named by their first target (special and pattern targets are
; dropped by rules_more.py), and define blocks.

(rule (targets . (word) @name)) @definition.function

(define_directive name: (word) @name) @definition.function
