#include "format/json_path_tree.h"

namespace sluice::format {

void JsonPathTree::Add(const JsonPath& path, uint32_t column) {
  uint32_t current = 0;
  for (const JsonPathStep& step : path.steps) {
    auto& children =
        step.kind == JsonPathStep::Kind::kKey ? nodes_[current].keys : nodes_[current].indexes;
    uint32_t next = UINT32_MAX;
    for (const Child& child : children) {
      if (child.step == step) next = child.node;
    }
    if (next == UINT32_MAX) {
      next = static_cast<uint32_t>(nodes_.size());
      // Take the parent's children again after growing nodes_: the reference above may now dangle.
      nodes_.emplace_back();
      auto& grown = step.kind == JsonPathStep::Kind::kKey ? nodes_[current].keys : nodes_[current].indexes;
      grown.push_back(Child{step, next});
    }
    current = next;
  }
  nodes_[current].columns.push_back(column);
}

const JsonPathTree::Node* JsonPathTree::FindKey(const Node& parent, std::string_view key) const {
  for (const Child& child : parent.keys) {
    if (child.step.key == key) return &nodes_[child.node];
  }
  return nullptr;
}

const JsonPathTree::Node* JsonPathTree::FindIndex(const Node& parent, size_t index) const {
  for (const Child& child : parent.indexes) {
    if (child.step.index == index) return &nodes_[child.node];
  }
  return nullptr;
}

}  // namespace sluice::format
