; Ruby: modules, classes and methods (instance and singleton).
(module name: (_) @name.module)
(class name: (_) @name.class)
(method name: (_) @name.method)
(singleton_method name: (_) @name.method)
