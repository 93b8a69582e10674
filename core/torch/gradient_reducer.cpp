#include "core/torch/gradient_reducer.h"

namespace rlzoo {

std::shared_ptr<GradientReducer> local_gradient_reducer() {
  static const auto reducer = std::make_shared<LocalGradientReducer>();
  return reducer;
}

}  // namespace rlzoo
