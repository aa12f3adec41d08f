#pragma once
// Overloaded{lambdas...}: one visitor for std::visit out of several lambdas, one per alternative.

namespace sluice {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace sluice
