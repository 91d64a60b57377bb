; JavaScript-only patterns (the TypeScript grammar shapes class heritage differently).

(class_heritage (_) @reference.inherit)
