#pragma once

#include <cstddef>
#include <list>
#include <optional>
#include <unordered_map>

namespace cache {

enum class Eviction { Lru, Fifo };

template <typename K, typename V>
class LruCache {
public:
    explicit LruCache(std::size_t capacity);
    ~LruCache() = default;

    std::optional<V> get(const K& key);
    void put(const K& key, V value);
    std::size_t size() const { return index_.size(); }

private:
    using Entry = std::pair<K, V>;
    std::list<Entry> order_;
    std::unordered_map<K, typename std::list<Entry>::iterator> index_;
    std::size_t capacity_;
};

struct Options {
    std::size_t capacity = 128;
    Eviction eviction = Eviction::Lru;
};

int hit_count();

}  // namespace cache
