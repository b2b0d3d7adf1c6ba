// A map from names to values for the few names one rule expression reads or
// one replacement template defines, made and dropped once per rewritten
// node: searched in order while small (no hashing, no allocation per entry),
// hashed once it holds more than kFew, as an @for loop's names can.
#pragma once

#include <cstddef>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace remap {

// Key: std::string, or std::string_view of strings that outlive the map.
template <typename Key, typename Value>
class FewNamesMap {
 public:
  static constexpr size_t kFew = 8;

  const Value* Find(std::string_view name) const {
    if (!many_.empty()) {
      auto it = many_.find(Key(name));
      return it == many_.end() ? nullptr : &it->second;
    }
    for (const auto& [key, value] : few_) {
      if (key == name) return &value;
    }
    return nullptr;
  }

  // Adds `name`, which the map must not hold yet.
  void Insert(Key name, Value value) {
    if (many_.empty() && few_.size() < kFew) {
      few_.emplace_back(std::move(name), std::move(value));
      return;
    }
    if (many_.empty()) {
      for (auto& entry : few_) many_.emplace(std::move(entry.first), std::move(entry.second));
      few_.clear();
    }
    many_.emplace(std::move(name), std::move(value));
  }

 private:
  std::vector<std::pair<Key, Value>> few_;
  std::unordered_map<Key, Value> many_;
};

}  // namespace remap
