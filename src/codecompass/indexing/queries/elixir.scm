; Elixir tags. Every definition is a call (defmodule, def, defp, defmacro, …):
; rules_more.py keeps the calls whose target is one of those words and names them.

(call target: (identifier) (arguments)) @definition.function

; Every call but the definitions, special forms and function heads (rules_more.py).
(call target: [(identifier) (dot)] @name) @reference.call
