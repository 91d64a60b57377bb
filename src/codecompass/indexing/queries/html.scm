; HTML tags: elements with an id attribute (rules_more.py checks the attribute name).

(element
  (start_tag
    (attribute
      (attribute_name)
      (quoted_attribute_value (attribute_value) @name)))) @definition.section

(element
  (start_tag
    (attribute
      (attribute_name)
      (attribute_value) @name))) @definition.section
