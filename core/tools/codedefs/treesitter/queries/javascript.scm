; JavaScript and JSX: classes, methods, functions, and variables bound to functions.
(class_declaration name: (identifier) @name.class)
(method_definition name: (property_identifier) @name.method)
(field_definition property: (property_identifier) @name.method value: [(arrow_function) (function_expression)])
(function_declaration name: (identifier) @name.function)
(generator_function_declaration name: (identifier) @name.function)
(variable_declarator name: (identifier) @name.function value: [(arrow_function) (function_expression) (generator_function)])
