<?php

declare(strict_types=1);

namespace App\Http;

interface Middleware
{
    public function handle(Request $request, callable $next): Response;
}

trait RecordsRoutes
{
    private array $log = [];

    protected function record(string $path): void
    {
        $this->log[] = $path;
    }
}

enum Method: string
{
    case Get = 'GET';
    case Post = 'POST';
}

final class Router
{
    use RecordsRoutes;

    private array $routes = [];

    public function add(Method $method, string $path, callable $handler): self
    {
        $this->routes[$method->value][$path] = $handler;
        return $this;
    }

    public function dispatch(Request $request): Response
    {
        $this->record($request->path);
        $handler = $this->routes[$request->method][$request->path] ?? null;
        if ($handler === null) {
            return new Response(404, 'Not Found');
        }
        return $handler($request);
    }
}

function route_key(string $method, string $path): string
{
    return strtoupper($method) . ' ' . $path;
}
