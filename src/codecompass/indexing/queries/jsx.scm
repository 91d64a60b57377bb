; JSX: rendering a component counts as calling it (rules.py drops lower-case HTML tags).

(jsx_opening_element name: (_) @name) @reference.call

(jsx_self_closing_element name: (_) @name) @reference.call
