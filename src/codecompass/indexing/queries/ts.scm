; Patterns of the .ts grammar only: the .tsx one reads `<T>` as JSX and has no
; type assertions.

; `const f = <T>(a: T): T => …` can parse as a type assertion of an arrow function when
; the grammar recovers from something it cannot read (hono's `useSyncExternalStore` was
; no symbol): a generic function all the same.
(variable_declarator
  name: (identifier) @name
  value: (type_assertion (arrow_function))) @definition.function
