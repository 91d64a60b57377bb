; Patterns shared by the JavaScript, TypeScript and TSX grammars.

(function_declaration name: (_) @name) @definition.function

(generator_function_declaration name: (_) @name) @definition.function

(class_declaration name: (_) @name) @definition.class

(class_body (method_definition name: (_) @name) @definition.method)

(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; A function made by a call, `React.memo((props) => …)`, `memo(forwardRef(…))`,
; `throttle(function …, 100)`: a function (rules.py follows the call to its body).
(variable_declarator
  name: (identifier) @name
  value: (call_expression
    arguments: (arguments . [(arrow_function) (function_expression) (generator_function)]))) @definition.function

(variable_declarator
  name: (identifier) @name
  value: (call_expression
    arguments: (arguments . (call_expression
      arguments: (arguments . [(arrow_function) (function_expression)]))))) @definition.function

; A named function handed to a call the module exports or runs: Next.js's
; `export default withAuth(async function middleware(req) {…})`.
(export_statement
  value: (call_expression
    arguments: (arguments (function_expression name: (identifier) @name) @definition.function)))

(program
  (expression_statement
    (call_expression
      arguments: (arguments (function_expression name: (identifier) @name) @definition.function))))

; The function a module exports by default behind a feature test, or unnamed: axios's
; `export default isHttpAdapterSupported && function httpAdapter(config) {…}`, its
; `… && (async (config) => {…})`, `export default function (req) {…}`. An unnamed one
; is `default`, the name JavaScript gives it.
(export_statement
  value: (binary_expression
    right: [(function_expression name: (identifier) @name) @definition.function
            (parenthesized_expression
              (function_expression name: (identifier) @name) @definition.function)]))

(export_statement
  "default" @name
  value: [(function_expression !name) (arrow_function)] @definition.function)

(export_statement
  "default" @name
  value: (binary_expression
    right: [(function_expression !name) @definition.function
            (arrow_function) @definition.function
            (parenthesized_expression
              [(function_expression !name) (arrow_function)] @definition.function)]))

; Objects holding functions are class-like; rules.py keeps an object literal with function
; members, and a module-level variable that receives functions (`res.json = function …`).
; These come before the constant patterns, which match the same declarators.
(variable_declarator name: (identifier) @name value: (object)) @definition.class

(program
  [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.class)
   (variable_declaration (variable_declarator name: (identifier) @name) @definition.class)])

(program
  (export_statement
    declaration: [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.class)
                  (variable_declaration (variable_declarator name: (identifier) @name) @definition.class)]))

(variable_declarator
  name: (identifier)
  value: (object (method_definition name: (property_identifier) @name) @definition.method))

(variable_declarator
  name: (identifier)
  value: (object
    (pair
      key: (property_identifier) @name
      value: [(arrow_function) (function_expression) (generator_function)]) @definition.method))

; CommonJS and prototype assignments: `obj.f = function …`, `exports.f = …`,
; `Foo.prototype.f = …`, `module.exports = function f …` (rules.py names them), and the
; functions of an object literal set to module.exports or to a prototype.
(assignment_expression
  left: (member_expression) @name
  right: [(arrow_function) (function_expression) (generator_function)]) @definition.function

(assignment_expression
  left: (member_expression)
  right: (object (method_definition name: (property_identifier) @name) @definition.method))

(assignment_expression
  left: (member_expression)
  right: (object
    (pair
      key: (property_identifier) @name
      value: [(arrow_function) (function_expression) (generator_function)]) @definition.method))

; Accessors and methods `Object.defineProperties(Foo.prototype, { hostname: { get () {…} } })`
; defines: `Foo.hostname` (rules.py keeps those of that call whose descriptor holds a
; function).
(call_expression
  arguments: (arguments
    (object (pair key: (property_identifier) @name value: (object)) @definition.method)))

; Module-level constants, exported or not; rules.py keeps only ALL_CAPS names.
(program
  (lexical_declaration
    (variable_declarator name: (identifier) @name) @definition.constant))

(program
  (export_statement
    declaration: (lexical_declaration
      (variable_declarator name: (identifier) @name) @definition.constant)))

(call_expression function: (_) @name) @reference.call

(new_expression constructor: (_) @name) @reference.call

(import_statement) @reference.import

(export_statement source: (_)) @reference.import
