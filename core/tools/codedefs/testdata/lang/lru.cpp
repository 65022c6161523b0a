#include "lru.hpp"

#include <stdexcept>

namespace cache {

template <typename K, typename V>
LruCache<K, V>::LruCache(std::size_t capacity) : capacity_(capacity) {
    if (capacity == 0) {
        throw std::invalid_argument("capacity must be positive");
    }
}

template <typename K, typename V>
std::optional<V> LruCache<K, V>::get(const K& key) {
    auto it = index_.find(key);
    if (it == index_.end()) {
        return std::nullopt;
    }
    order_.splice(order_.begin(), order_, it->second);
    return it->second->second;
}

template <typename K, typename V>
void LruCache<K, V>::put(const K& key, V value) {
    order_.emplace_front(key, std::move(value));
    index_[key] = order_.begin();
    if (index_.size() > capacity_) {
        index_.erase(order_.back().first);
        order_.pop_back();
    }
}

static int hits = 0;

int hit_count() {
    return hits;
}

struct Stats {
    int hits;
    int misses;
};

class Printer {
public:
    explicit Printer(std::ostream& out) : out_(out) {}
    void print(const Stats& s) { out_ << s.hits << "/" << s.misses; }

private:
    std::ostream& out_;
};

}  // namespace cache
