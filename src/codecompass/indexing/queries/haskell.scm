; Haskell tags. A type signature directly above a function belongs to it; the equations
; of one function are merged into one symbol (rules_more.py).

(declarations (function name: (variable) @name) @definition.function)

(declarations (bind name: (variable) @name) @definition.function)

(declarations (data_type name: (name) @name) @definition.type)

(declarations (newtype name: (name) @name) @definition.type)

(declarations (type_synonym name: (name) @name) @definition.type)

(declarations (class name: (name) @name) @definition.interface)

(class_declarations (signature name: (variable) @name) @definition.function)

(apply function: [(variable) (qualified)] @name) @reference.call

; `import qualified Data.Aeson.Types as T`: the module, not its alias.
(import . (module) @name) @reference.import
