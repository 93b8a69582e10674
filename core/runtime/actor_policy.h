// What an actor asks of a policy, and where the network evaluation behind it runs.
//
// ActorPolicy: actions (and per-step extras such as log-probabilities and values) for a batch
// of observations. Each actor thread owns its own policy object, so implementations need not
// be thread-safe; per-env random streams (keyed by ActBatch::first_env + row) make an env's
// exploration independent of which actor steps it.
//
// BatchEvaluator: rows of observation bytes -> rows of output bytes (Q-values, logits, a
// sampled action...). The same policy logic runs on
//  * a local network replica per actor (rl/runtime/module_evaluator.h),
//  * a shared batched inference server (ServedEvaluator, core/runtime/batching_server.h),
//  * or row by row (RowByRowEvaluator, the per-env baseline of `rlzoo bench runtime`).
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "core/common/bytes.h"
#include "core/runtime/batching_server.h"
#include "core/runtime/stop.h"

namespace rlzoo {

struct ActBatch {
  ConstBytes obs;                         // rows x observation bytes
  std::span<const std::uint8_t> masks;    // rows x n legal-action flags, or empty
  std::int64_t rows = 0;
  std::int64_t first_env = 0;             // global index of the env of row 0
  std::int64_t step = 0;                  // the actor's vector-env steps before this one
  // rows flags, 1 where this row's observation starts an episode (the first after the loop
  // began, or after an autoreset): a recurrent policy zeroes that row's state. May be empty.
  std::span<const std::uint8_t> episode_starts;
  Bytes actions;                          // out: rows x action bytes
  std::span<float> extras;                // out: rows x num_extras()
};

class ActorPolicy {
 public:
  virtual ~ActorPolicy() = default;
  virtual std::size_t num_extras() const { return 0; }
  // Called before trajectory `sequence` starts; may block (an on-policy actor waits here for
  // the parameters the learner publishes after round sequence - 1) until `stop`. Returns the
  // parameter version the trajectory will be made with.
  virtual std::uint64_t begin_trajectory(std::uint64_t /*sequence*/, const StopSource& /*stop*/) { return 0; }
  // Fills batch.actions (and batch.extras). Returns false when the evaluator behind the policy
  // was shut down (a stopped inference server): the actor then stops.
  virtual bool act(const ActBatch& batch) = 0;
};

class BatchEvaluator {
 public:
  virtual ~BatchEvaluator() = default;
  virtual std::size_t in_row_bytes() const = 0;
  virtual std::size_t out_row_bytes() const = 0;
  // rows x in_row_bytes() -> rows x out_row_bytes(). Returns false when the evaluator was
  // shut down (a stopped server).
  virtual bool evaluate(ConstBytes in, std::int64_t rows, Bytes out) = 0;
};

// Sends every batch to a shared BatchingServer (which owns the one network).
class ServedEvaluator : public BatchEvaluator {
 public:
  ServedEvaluator(BatchingServer& server, std::size_t in_row_bytes, std::size_t out_row_bytes)
      : server_(&server), in_(in_row_bytes), out_(out_row_bytes) {}
  std::size_t in_row_bytes() const override { return in_; }
  std::size_t out_row_bytes() const override { return out_; }
  bool evaluate(ConstBytes in, std::int64_t rows, Bytes out) override { return server_->evaluate(in, rows, out); }

 private:
  BatchingServer* server_;
  std::size_t in_, out_;
};

// Evaluates one row per call: what an actor without batched inference does.
class RowByRowEvaluator : public BatchEvaluator {
 public:
  explicit RowByRowEvaluator(std::shared_ptr<BatchEvaluator> inner) : inner_(std::move(inner)) {}
  std::size_t in_row_bytes() const override { return inner_->in_row_bytes(); }
  std::size_t out_row_bytes() const override { return inner_->out_row_bytes(); }
  bool evaluate(ConstBytes in, std::int64_t rows, Bytes out) override {
    const std::size_t i = in_row_bytes(), o = out_row_bytes();
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto k = static_cast<std::size_t>(r);
      if (!inner_->evaluate(in.subspan(k * i, i), 1, out.subspan(k * o, o))) return false;
    }
    return true;
  }

 private:
  std::shared_ptr<BatchEvaluator> inner_;
};

}  // namespace rlzoo
