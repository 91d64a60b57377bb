; CSS tags: rule sets named by their selectors (top level and inside @media), and
; @keyframes.

(stylesheet (rule_set (selectors) @name) @definition.section)

(media_statement (block (rule_set (selectors) @name) @definition.section))

(keyframes_statement (keyframes_name) @name) @definition.section
