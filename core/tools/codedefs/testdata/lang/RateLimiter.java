package com.example.limits;

import java.time.Clock;
import java.util.concurrent.ConcurrentHashMap;

/** Token bucket rate limiter keyed by client id. */
public class RateLimiter {
    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();
    private final Clock clock;
    private final int capacity;

    public RateLimiter(Clock clock, int capacity) {
        this.clock = clock;
        this.capacity = capacity;
    }

    public boolean tryAcquire(String client) {
        Bucket b = buckets.computeIfAbsent(client, k -> new Bucket(capacity, clock.millis()));
        return b.take(clock.millis());
    }

    public interface Listener {
        void onRejected(String client);
    }

    private static final class Bucket {
        private double tokens;
        private long last;

        Bucket(int capacity, long now) {
            this.tokens = capacity;
            this.last = now;
        }

        synchronized boolean take(long now) {
            tokens = Math.min(tokens + (now - last) / 1000.0, tokens);
            last = now;
            if (tokens < 1) {
                return false;
            }
            tokens -= 1;
            return true;
        }
    }

    public enum Policy {
        STRICT,
        LENIENT
    }

    public record Stats(long allowed, long rejected) {}
}
