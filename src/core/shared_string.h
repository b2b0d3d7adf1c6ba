// Immutable strings and lists that copy as a pointer. Report records repeat
// the same few values (a rule's file name, an op name, the candidate trail
// of every node a rule rewrote the same way); a million-node model has a
// hundred thousand such records, and a copy of each value in each record cost
// more memory than the rest of the rewrite. Equal values are shared by
// interning them (engine/outcome_interner.h), or by copying one record's.
#pragma once

#include <fmt/format.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace remap {

class SharedString {
 public:
  SharedString() = default;
  // NOLINTNEXTLINE: implicit, a record field is set from a string
  SharedString(std::string s) : s_(s.empty() ? nullptr : std::make_shared<const std::string>(std::move(s))) {}
  SharedString(const char* s) : SharedString(std::string(s)) {}  // NOLINT: implicit

  const std::string& str() const { return s_ ? *s_ : Empty(); }
  operator const std::string&() const { return str(); }  // NOLINT: implicit, reads as a string
  const char* c_str() const { return str().c_str(); }
  size_t size() const { return str().size(); }
  bool empty() const { return str().empty(); }
  // The same storage: equal contents, compared in O(1) (interned values).
  bool SharesWith(const SharedString& other) const { return s_ == other.s_; }
  // The storage's address: a hash key for grouping interned values.
  const void* identity() const { return s_.get(); }

  friend bool operator==(const SharedString& a, const SharedString& b) { return a.s_ == b.s_ || a.str() == b.str(); }
  friend bool operator!=(const SharedString& a, const SharedString& b) { return !(a == b); }
  friend bool operator==(const SharedString& a, const std::string& b) { return a.str() == b; }
  friend bool operator==(const std::string& a, const SharedString& b) { return a == b.str(); }
  friend bool operator!=(const SharedString& a, const std::string& b) { return a.str() != b; }
  friend bool operator==(const SharedString& a, const char* b) { return a.str() == b; }
  friend bool operator!=(const SharedString& a, const char* b) { return a.str() != b; }
  friend bool operator<(const SharedString& a, const SharedString& b) { return a.str() < b.str(); }

 private:
  static const std::string& Empty() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::string> s_;
};

// A read-only vector shared between copies.
template <typename T>
class SharedList {
 public:
  SharedList() = default;
  // NOLINTNEXTLINE: implicit, a record field is set from a vector
  SharedList(std::vector<T> v) : v_(v.empty() ? nullptr : std::make_shared<const std::vector<T>>(std::move(v))) {}
  SharedList(std::initializer_list<T> v) : SharedList(std::vector<T>(v)) {}

  const std::vector<T>& items() const { return v_ ? *v_ : Empty(); }
  operator const std::vector<T>&() const { return items(); }  // NOLINT: implicit, reads as a vector
  auto begin() const { return items().begin(); }
  auto end() const { return items().end(); }
  size_t size() const { return items().size(); }
  bool empty() const { return items().empty(); }
  const T& operator[](size_t i) const { return items()[i]; }
  const T& front() const { return items().front(); }
  const T& back() const { return items().back(); }
  // The same storage (interned values).
  bool SharesWith(const SharedList& other) const { return v_ == other.v_; }
  const void* identity() const { return v_.get(); }

  friend bool operator==(const SharedList& a, const SharedList& b) { return a.v_ == b.v_ || a.items() == b.items(); }
  friend bool operator==(const SharedList& a, const std::vector<T>& b) { return a.items() == b; }
  friend bool operator<(const SharedList& a, const SharedList& b) { return a.items() < b.items(); }

 private:
  static const std::vector<T>& Empty() {
    static const std::vector<T> empty;
    return empty;
  }
  std::shared_ptr<const std::vector<T>> v_;
};

}  // namespace remap

template <>
struct fmt::formatter<remap::SharedString> : fmt::formatter<std::string_view> {
  template <typename Context>
  auto format(const remap::SharedString& s, Context& ctx) const {
    return fmt::formatter<std::string_view>::format(s.str(), ctx);
  }
};
