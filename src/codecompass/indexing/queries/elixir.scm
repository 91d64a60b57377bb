; Elixir tags. Every definition is a call (defmodule, def, defp, defmacro, …):
; rules_more.py keeps the calls whose target is one of those words and names them.

(call target: (identifier) (arguments)) @definition.function
