#include "algorithms/secbad/candidate_encoder.h"

#include "core/common/error.h"

namespace rlzoo::secbad {

CandidateEncoder::CandidateEncoder(torch::nn::GRUCell cell) : cell_(std::move(cell)) { reset(); }

void CandidateEncoder::reset() {
  hidden_ = torch::zeros({0, cell_->options.hidden_size()});
  lengths_.clear();
}

void CandidateEncoder::restore(torch::Tensor hidden, std::vector<std::int64_t> lengths) {
  RLZOO_CHECK(hidden.dim() == 2 && hidden.size(0) == static_cast<std::int64_t>(lengths.size()) &&
                  hidden.size(1) == cell_->options.hidden_size(),
              "CandidateEncoder: a restored state must be [candidates, hidden] with one length per candidate");
  hidden_ = std::move(hidden);
  lengths_ = std::move(lengths);
}

void CandidateEncoder::step(const torch::Tensor& x) {
  const auto row = x.reshape({1, -1});
  const auto k = hidden_.size(0);
  // The new candidate (zero state) first, then the live ones: one GRU call for all.
  const auto h = torch::cat({torch::zeros({1, hidden_.size(1)}, hidden_.options()), hidden_}, 0);
  hidden_ = cell_->forward(row.expand({k + 1, row.size(1)}), h);
  std::vector<std::int64_t> next{1};
  for (auto g : lengths_) next.push_back(g + 1);
  lengths_ = std::move(next);
}

void CandidateEncoder::keep(std::span<const std::int64_t> lengths) {
  std::vector<std::int64_t> rows;
  std::size_t j = 0;
  for (auto g : lengths) {
    while (j < lengths_.size() && lengths_[j] < g) ++j;
    RLZOO_CHECK(j < lengths_.size() && lengths_[j] == g, "keep() of a length that is not a live candidate");
    rows.push_back(static_cast<std::int64_t>(j));
  }
  hidden_ = hidden_.index_select(0, torch::tensor(rows, torch::kInt64));
  lengths_.assign(lengths.begin(), lengths.end());
}

}  // namespace rlzoo::secbad
