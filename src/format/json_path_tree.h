#pragma once
// The jsonpaths of a decoder merged into one tree (`$.a.b` and `$.a.c` share the node for `a`), so that a single
// forward walk over a row's JSON reaches every wanted value: simdjson's On-Demand API reads forward only, and
// walking once is also what keeps wide rows cheap.
#include <cstdint>
#include <string_view>
#include <vector>

#include "format/json_path.h"

namespace sluice::format {

class JsonPathTree {
 public:
  struct Child {
    JsonPathStep step;
    uint32_t node;
  };
  struct Node {
    std::vector<uint32_t> columns;  // columns filled with the value at exactly this position
    std::vector<Child> keys;        // children reached through an object key
    std::vector<Child> indexes;     // children reached through an array index
    bool has_children() const { return !keys.empty() || !indexes.empty(); }
  };

  JsonPathTree() : nodes_(1) {}

  void Add(const JsonPath& path, uint32_t column);

  const Node& root() const { return nodes_[0]; }
  const Node& node(uint32_t id) const { return nodes_[id]; }
  // The child of `parent` for an object key or an array index, or nullptr.
  const Node* FindKey(const Node& parent, std::string_view key) const;
  const Node* FindIndex(const Node& parent, size_t index) const;

 private:
  std::vector<Node> nodes_;  // nodes_[0] is `$`
};

}  // namespace sluice::format
