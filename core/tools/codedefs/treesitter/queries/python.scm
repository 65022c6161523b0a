; Python: classes, methods (functions directly inside a class body) and functions.
(class_definition name: (identifier) @name.class)
(class_definition body: (block (function_definition name: (identifier) @name.method)))
(class_definition body: (block (decorated_definition definition: (function_definition name: (identifier) @name.method))))
(function_definition name: (identifier) @name.function)
